package dev.zluda.ptx;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one table of PTX instruction families (PTX ISA 9.0, chapter 9.7 "Instructions") and what this
 * project supports of each. {@code zluda ptx check} reads it, and {@code docs/support.md} is generated
 * from it ({@link #toMarkdown()}), so the two cannot disagree.
 *
 * <p>A family is an opcode plus the leading modifiers that make it a distinct instruction
 * ({@code cp.async.bulk.tensor}, {@code mbarrier.try_wait}); an instruction belongs to the family
 * with the longest key that its opcode and modifiers start with ({@link #lookup}).
 *
 * <p>Support today: the emulator column says which families the CPU emulator executes (with its
 * limits, {@link #emulatorLimits}). What the PTX → LLVM IR compiler ({@code dev.zluda.ptx.llvm}) lowers
 * is decided per instruction form by the compiler itself (docs/amd.md lists it; {@code zluda ptx
 * check} asks it). The parser and the semantic checks ({@link Semantics}) accept every family listed.
 */
public final class InstructionTable {

    /**
     * One instruction family.
     *
     * @param key        opcode and distinguishing modifiers, e.g. {@code "cp.async.bulk.tensor"}
     * @param isaSection the PTX ISA 9.0 section that defines it, e.g. {@code "9.7.9.25"}
     * @param group      the ISA's grouping ("Integer Arithmetic", ...)
     * @param emulator   whether this project's CPU emulator executes it
     */
    public record Family(String key, String isaSection, String group, boolean emulator) {
        /**
         * The modifiers this family accepts after its key (e.g. for {@code add}: types, rounding,
         * {@code .ftz}, {@code .sat}), or {@code null} when this table does not list them and
         * {@link Semantics} does not check them.
         */
        public java.util.Set<String> modifiers() {
            return MODIFIERS.get(key);
        }

        /** Number of modifiers that are part of the key ({@code cp.async.bulk} → 2). */
        public int keyModifiers() {
            return (int) key.chars().filter(c -> c == '.').count();
        }
    }

    // Accepted modifiers of the families whose syntax this table enumerates (PTX ISA 9.0 syntax
    // sections). Named groups are expanded: INT, BIT, FLOAT, ROUND, IROUND, CMP, BOOL.
    private static final String MODIFIER_TABLE = """
            add sub        | INT FLOAT ROUND .ftz .sat .s16x2 .u16x2 .relu
            add.cc sub.cc addc subc | .u32 .s32 .u64 .s64 .cc
            mul            | INT FLOAT ROUND .hi .lo .wide .ftz .sat
            mad            | INT FLOAT ROUND .hi .lo .wide .ftz .sat .cc
            mad.cc madc    | .hi .lo .u32 .s32 .u64 .s64 .cc
            mul24 mad24    | .hi .lo .u32 .s32 .sat
            fma            | FLOAT ROUND .ftz .sat .relu .oob .satfinite
            div            | INT FLOAT ROUND .approx .full .ftz
            rem            | INT
            abs neg        | INT FLOAT .ftz .relu
            min max        | INT BIT FLOAT .ftz .NaN .xorsign .abs .relu .s16x2 .u16x2
            and or xor not cnot | BIT .pred
            shl shr        | BIT INT
            lop3           | .b32 BOOL
            mov            | INT BIT FLOAT .pred .v2 .v4
            setp set       | CMP BOOL INT BIT FLOAT .ftz
            selp slct      | INT BIT FLOAT .ftz
            bra ret        | .uni
            exit trap brkpt |
            cvta           | .to .global .shared .local .const .param .shared::cta .shared::cluster .param::entry .u32 .u64
            rcp sqrt rsqrt sin cos lg2 ex2 tanh | FLOAT ROUND .approx .full .ftz
            copysign       | .f32 .f64
            testp          | .finite .infinite .number .notanumber .normal .subnormal .f32 .f64
            popc clz brev  | .b32 .b64
            bfind          | .u32 .u64 .s32 .s64 .shiftamt
            bfe            | .u32 .u64 .s32 .s64
            bfi            | .b32 .b64
            prmt           | .b32 .f4e .b4e .rc8 .ecl .ecr .rc16
            shfl           | .sync .up .down .bfly .idx .b32
            vote           | .sync .all .any .uni .ballot .pred .b32
            activemask     | .b32
            bar barrier    | .sync .arrive .red .popc .and .or .u32 .pred .aligned .cta
            membar         | .cta .gl .sys .proxy .alias
            """;

    private static final Map<String, java.util.Set<String>> MODIFIERS = new HashMap<>();

    /**
     * The families the CPU emulator ({@code dev.zluda.runtime.emulator} in zluda-runtime) executes,
     * with what it does not execute of them (empty: everything the ISA defines). A form it does not
     * execute fails the module load with CUDA_ERROR_NOT_SUPPORTED and a log naming it and its line.
     */
    private static final Map<String, String> EMULATED = new HashMap<>();

    static {
        String[][] e = {
                {"add sub mul mad min max abs neg", "not .relu on .f32/.f64 (min/max) nor .xorsign on .f64; half precision (.f16, .bf16, .f16x2, .bf16x2) only with .rn"},
                {"mul24 mad24 sad div rem popc clz bfind fns brev bfe bfi szext bmsk dp4a dp2a", ""},
                {"add.cc addc sub.cc subc mad.cc madc", ""},
                {"fma", "half precision only with .rn; not .oob/.satfinite"},
                {"rcp sqrt rsqrt sin cos lg2", ".approx forms are computed in double precision and rounded"},
                {"ex2 tanh", ".approx forms are computed in double precision and rounded (also for .f16/.bf16)"},
                {"testp copysign", ""},
                {"set setp", ""},
                {"selp slct and or xor not cnot shf shl shr prmt", ""},
                {"lop3", ""},
                {"mov", ""},
                {"shfl", ""},
                {"ld ldu st", "not .b128; cache and eviction hints are ignored"},
                {"cvta isspacep", ""},
                {"cvt", "integer, .f16, .bf16, .f32, .f64, .f16x2/.bf16x2 packing from .f32 (with .satfinite), .tf32 from .f32 (.rna, .rn, .rz), .e4m3x2/.e5m2x2 from two .f32 or an .f16x2 and back to .f16x2; not the fp6/fp4 formats, .ue8m0x2 or .rs"},
                {"cvt.pack", "the .sat forms into .u8, .s8, .u16, .s16 from .s32; not .u4/.s4"},
                {"prefetch prefetchu applypriority discard createpolicy", "no effect (no caches)"},
                {"cp.async", "done synchronously at the instruction"},
                {"cp.async.commit_group cp.async.wait_group cp.async.wait_all", "no effect (copies are synchronous)"},
                {"tex", "texture objects (no texture references or samplers); .1d/.2d/.3d, .v4, .f32/.s32/.u32 results from .f32/.s32 coordinates; not .level/.grad, array or cube geometries, offsets, depth compare or .f16 results"},
                {"tld4", ".2d on texture objects with .f32 coordinates"},
                {"suld sust", "the .b forms (.b8/.b16/.b32/.b64, .v2/.v4, .trap/.clamp/.zero) on surface objects; not sust.p"},
                {"mbarrier.init mbarrier.inval mbarrier.arrive mbarrier.arrive_drop mbarrier.test_wait mbarrier.try_wait mbarrier.pending_count", "shared memory, no transaction counts (.expect_tx), .noComplete or cluster scope; try_wait answers at once"},
                {"bra ret exit", ""},
                {"call", "direct calls of non-recursive functions are inlined; recursive and address-taken functions run as real calls "
                        + "(registers and a .param/.local frame per activation on the thread's stack of CU_LIMIT_STACK_SIZE bytes), "
                        + "also indirect through a .callprototype or .calltargets label with per-lane targets; vprintf, __assertfail and cudaGraphSetConditional are provided"},
                {"alloca stacksave stackrestore", "on the thread's stack of CU_LIMIT_STACK_SIZE bytes; overflow stops the kernel with CUDA_ERROR_HARDWARE_STACK_ERROR"},
                {"bar barrier", ""},
                {"barrier.cluster", "the CTAs of a cluster run interleaved on one host thread, so .release/.acquire/.relaxed need nothing more; "
                        + "arriving twice without waiting, or waiting without arriving (undefined in the ISA), stops the kernel"},
                {"mapa", "distributed shared memory of the CTAs of a cluster (launches with cluster dimensions, compute capability 9.0 or newer)"},
                {"getctarank", "translated, but no kernel recorded on the H200 uses it yet, so it is not among the checked forms and the emulator refuses it at load"},
                {"bar.warp.sync membar fence activemask vote match elect", ""},
                {"redux", "not on .f32"},
                {"atom red", "32- and 64-bit integer and .f32/.f64 add/exch, atom.cas.b16, .add.noftz on .f16/.bf16/.f16x2/.bf16x2; "
                        + "vector forms on global memory: .add .v2/.v4 .f32, .add/.min/.max.noftz .v2/.v4/.v8 .f16/.bf16 and .v2/.v4 .f16x2/.bf16x2 "
                        + "(one atomic per element); not .b128 (the emulator has no 128-bit registers)"},
                {"nanosleep pmevent trap brkpt griddepcontrol setmaxnreg", ""},
                {"mma", "only .m16n8k16 (.f16, .bf16, .s8/.u8), .m16n8k8 (.f16, .bf16, .tf32) and .m16n8k32 (.s8/.u8) in .row.col, .satfinite with .s8/.u8; "
                        + "not .sp, fp8/fp6/fp4, .f64, .b1, .s4/.u4 or the other shapes; the tensor cores' f32/f16 accumulation as measured on an H200 "
                        + "(docs/support.md); like ldmatrix, stmatrix and wmma, executed by the whole warp or CUDA_ERROR_ILLEGAL_INSTRUCTION"},
                {"ldmatrix stmatrix", "only .m8n8 .b16 (.x1/.x2/.x4, .trans); not .m16n16/.m8n16 or the .b8x16 formats"},
                {"movmatrix", "only .m8n8.trans.b16 (the one form of PTX ISA 9.0)"},
                {"wmma.load wmma.store wmma.mma", "only .m16n16k16 with .f16 (f16/f32 accumulators) or .bf16 (f32); not the other shapes, .tf32, "
                        + "integer, .b1 or .satfinite; the fragment layout is the emulator's own (the ISA leaves it unspecified)"},
        };
        for (String[] row : e) for (String k : row[0].split(" ")) EMULATED.put(k, row[1]);
    }

    /**
     * Whether the emulator executes an instruction form: its family's emulator column, refined by form for the
     * families whose support depends on shape and types (the warp-level matrix instructions, PTX ISA 9.0
     * §9.7.14: {@code mma}, {@code ldmatrix}, {@code stmatrix}, {@code wmma.*}). It mirrors what the
     * emulator's translator accepts ({@code MatrixConformanceTest} checks the two agree); for other families
     * the limits listed in {@link #emulatorLimits} are not checked here, the module load names them.
     *
     * @param family    the form's family ({@link #lookup})
     * @param modifiers every modifier of the form, in order (those of the key included)
     */
    public static boolean emulatorExecutes(Family family, List<String> modifiers) {
        if (!family.emulator()) return false;
        List<String> types = new ArrayList<>();
        for (String m : modifiers) {
            if (List.of(".f16", ".bf16", ".tf32", ".f32", ".s8", ".u8", ".s32").contains(m)) types.add(m);
        }
        switch (family.key()) {
            case "mma" -> {
                if (!modifiers.contains(".row") || !modifiers.contains(".col") || types.size() != 4) return false;
                for (String m : modifiers) if (m.startsWith(".sp") || m.startsWith(".block_scale") || m.startsWith(".kind")) return false;
                String d = types.get(0), a = types.get(1), b = types.get(2), c = types.get(3);
                boolean i8 = a.equals(".s8") || a.equals(".u8");
                if (modifiers.contains(".satfinite") && !i8) return false;
                if (modifiers.contains(".m16n8k32") || (i8 && modifiers.contains(".m16n8k16"))) {
                    return i8 && (b.equals(".s8") || b.equals(".u8")) && d.equals(".s32") && c.equals(".s32");
                }
                boolean k8 = modifiers.contains(".m16n8k8"), k16 = modifiers.contains(".m16n8k16");
                if (!(k8 || k16) || !b.equals(a)) return false;
                if (a.equals(".f16")) return (d.equals(".f16") || d.equals(".f32")) && c.equals(d);
                return (a.equals(".bf16") || (k8 && a.equals(".tf32"))) && d.equals(".f32") && c.equals(".f32");
            }
            case "ldmatrix", "stmatrix" -> {
                return modifiers.contains(".m8n8") && modifiers.contains(".b16");
            }
            case "movmatrix" -> {
                return modifiers.contains(".m8n8") && modifiers.contains(".trans") && modifiers.contains(".b16");
            }
            case "wmma.mma" -> {
                if (!modifiers.contains(".m16n16k16") || modifiers.contains(".satfinite")) return false;
                if (types.size() == 4) return types.equals(List.of(".f32", ".bf16", ".bf16", ".f32"));
                return types.size() == 2 && types.stream().allMatch(t -> t.equals(".f16") || t.equals(".f32"));
            }
            case "wmma.load", "wmma.store" -> {
                if (!modifiers.contains(".m16n16k16") || types.size() != 1 || !(modifiers.contains(".row") || modifiers.contains(".col"))) return false;
                boolean ab = modifiers.contains(".a") || modifiers.contains(".b");
                if (ab) return types.get(0).equals(".f16") || types.get(0).equals(".bf16");
                return (modifiers.contains(".c") || modifiers.contains(".d")) && (types.get(0).equals(".f16") || types.get(0).equals(".f32"));
            }
            default -> {
                return true;
            }
        }
    }

    /** What the emulator does not execute of a family it supports ("" for nothing), or null when it does not support it. */
    public static String emulatorLimits(String key) {
        return EMULATED.get(key);
    }

    private static final List<Family> FAMILIES;
    private static final Map<String, Family> BY_KEY = new HashMap<>();

    // group | section | space-separated family keys
    private static final String TABLE = """
            Integer Arithmetic|9.7.1|add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi szext bmsk dp4a dp2a
            Extended-Precision Integer Arithmetic|9.7.2|add.cc addc sub.cc subc mad.cc madc
            Floating-Point|9.7.3|testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2 tanh
            Comparison and Selection|9.7.6|set setp selp slct
            Logic and Shift|9.7.8|and or xor not cnot lop3 shf shl shr
            Data Movement and Conversion|9.7.9|mov shfl prmt ld ldu st st.async st.bulk multimem.ld_reduce multimem.st multimem.red multimem.cp.async.bulk multimem.cp.reduce.async.bulk prefetch prefetchu applypriority discard createpolicy isspacep cvta cvt cvt.pack mapa getctarank cp.async cp.async.commit_group cp.async.wait_group cp.async.wait_all cp.async.bulk cp.reduce.async.bulk cp.async.bulk.prefetch cp.async.bulk.tensor cp.reduce.async.bulk.tensor cp.async.bulk.prefetch.tensor cp.async.bulk.commit_group cp.async.bulk.wait_group cp.async.mbarrier.arrive tensormap.replace
            Texture|9.7.10|tex tld4 txq istypep
            Surface|9.7.11|suld sust sured suq
            Control Flow|9.7.12|bra brx.idx call ret exit
            Parallel Synchronization and Communication|9.7.13|bar barrier bar.warp.sync barrier.cluster membar fence atom red red.async vote match redux griddepcontrol elect mbarrier.init mbarrier.inval mbarrier.expect_tx mbarrier.complete_tx mbarrier.arrive mbarrier.arrive_drop mbarrier.test_wait mbarrier.try_wait mbarrier.pending_count tensormap.cp_fenceproxy clusterlaunchcontrol.try_cancel clusterlaunchcontrol.query_cancel activemask
            Warp Level Matrix Multiply-Accumulate|9.7.14|wmma.load wmma.store wmma.mma mma mma.sp ldmatrix stmatrix movmatrix
            Asynchronous Warpgroup Level Matrix Multiply-Accumulate|9.7.15|wgmma.mma_async wgmma.mma_async.sp wgmma.fence wgmma.commit_group wgmma.wait_group
            TensorCore 5th Generation|9.7.16|tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit tcgen05.ld tcgen05.st tcgen05.wait tcgen05.cp tcgen05.shift tcgen05.mma tcgen05.mma.sp tcgen05.mma.ws tcgen05.mma.ws.sp tcgen05.commit tcgen05.fence
            Stack Manipulation|9.7.17|stacksave stackrestore alloca
            Video|9.7.18|vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4
            Miscellaneous|9.7.19|brkpt nanosleep pmevent trap setmaxnreg
            """;

    static {
        List<Family> all = new ArrayList<>();
        for (String line : TABLE.strip().split("\n")) {
            String[] parts = line.split("\\|");
            for (String key : parts[2].trim().split(" +")) {
                Family f = new Family(key, parts[1], parts[0], EMULATED.containsKey(key));
                if (BY_KEY.putIfAbsent(key, f) == null) all.add(f);
            }
        }
        FAMILIES = Collections.unmodifiableList(all);
        Map<String, List<String>> groups = Map.of(
                "INT", List.of(".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64"),
                "BIT", List.of(".b8", ".b16", ".b32", ".b64", ".b128"),
                "FLOAT", List.of(".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".f32x2"),
                "ROUND", List.of(".rn", ".rz", ".rm", ".rp", ".rna"),
                "IROUND", List.of(".rni", ".rzi", ".rmi", ".rpi"),
                "CMP", List.of(".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs",
                        ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"),
                "BOOL", List.of(".and", ".or", ".xor"));
        for (String line : MODIFIER_TABLE.strip().split("\n")) {
            String[] parts = line.split("\\|", -1);
            java.util.Set<String> mods = new java.util.HashSet<>();
            for (String w : parts[1].trim().split(" +")) {
                if (w.isEmpty()) continue;
                List<String> g = groups.get(w);
                if (g != null) mods.addAll(g); else mods.add(w);
            }
            for (String key : parts[0].trim().split(" +")) {
                if (!BY_KEY.containsKey(key)) throw new IllegalStateException("modifier table names unknown family " + key);
                MODIFIERS.put(key, java.util.Set.copyOf(mods));
            }
        }
    }

    private InstructionTable() {}

    /** All families in ISA order. */
    public static List<Family> families() {
        return FAMILIES;
    }

    /**
     * The family of an instruction: the longest key equal to {@code opcode} followed by a prefix of
     * {@code modifiers}; {@code null} when the opcode is not a PTX instruction.
     */
    public static Family lookup(String opcode, List<String> modifiers) {
        Family best = BY_KEY.get(opcode);
        StringBuilder key = new StringBuilder(opcode);
        for (int i = 0; i < modifiers.size() && i < 4; i++) {
            key.append(modifiers.get(i));
            Family f = BY_KEY.get(key.toString());
            if (f != null) best = f;
        }
        return best;
    }

    private static final java.util.Set<String> ARITH = java.util.Set.of("add", "sub", "mul", "mad", "div", "abs", "neg", "min", "max");

    /**
     * The ISA section that defines an instruction form: the family's section, refined for the
     * families the ISA describes in several chapters by operand type — floating-point
     * {@code add}/{@code sub}/{@code mul}/... are 9.7.3, half precision 9.7.4 (with {@code fma} and
     * the packed types), half-precision comparisons 9.7.7.
     */
    public static String isaSection(Family family, List<String> modifiers) {
        boolean half = false, single = false;
        for (String m : modifiers) {
            switch (m) {
                case ".f16", ".f16x2", ".bf16", ".bf16x2" -> half = true;
                case ".f32", ".f64" -> single = true;
                default -> {}
            }
        }
        String k = family.key();
        if (half && (ARITH.contains(k) || k.equals("fma") || k.equals("tanh") || k.equals("ex2"))) return "9.7.4";
        if (half && (k.equals("set") || k.equals("setp"))) return "9.7.7";
        if (single && ARITH.contains(k)) return "9.7.3";
        return family.isaSection();
    }

    /** The family of an instruction node; see {@link #lookup(String, List)}. */
    public static Family lookup(Ast.Instruction ins) {
        return lookup(ins.opcode(), ins.modifiers());
    }

    /** Renders the table as the Markdown of {@code docs/support.md}. */
    public static String toMarkdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# PTX instruction support\n\n");
        sb.append("Generated from `dev.zluda.ptx.InstructionTable` (ptx module); do not edit by hand.\n");
        sb.append("Regenerate with `mvn -pl ptx test -Dzluda.regen=true` (`InstructionTableDocTest` fails when this file is stale).\n\n");
        sb.append("Columns: *parser* — the PTX front end parses the family and checks its operands' symbols and count;\n");
        sb.append("*emulator* — the CPU emulator executes it. Limits of the emulator on a family it executes are listed after\n");
        sb.append("the table. Within a family it executes only the instruction forms (opcode with all modifiers) that the conformance\n");
        sb.append("suites checked against an NVIDIA H200 (`dev.zluda.ptx.EmulatorForms`, the list in\n");
        sb.append("`ptx/src/main/resources/dev/zluda/ptx/emulator-forms.txt`; [docs/support.md](../../docs/support.md), \"The exhaustive\n");
        sb.append("instruction sweep\"); a module with any other form is refused at load with `CUDA_ERROR_NOT_SUPPORTED`, and\n");
        sb.append("`zluda ptx check` warns for it. What the PTX → LLVM IR compiler (the AMD back end) lowers is decided per instruction form and listed in\n");
        sb.append("[docs/amd.md](../../docs/amd.md); `zluda ptx check` shows its verdict on given files (the `gfx1100` column).\n\n");
        sb.append("*modifiers checked*: the semantic layer rejects modifiers this family does not have (otherwise any\n");
        sb.append("dotted word is accepted after the opcode and left to later stages).\n\n");
        sb.append("| family | PTX ISA 9.0 section | group | parser | modifiers checked | emulator |\n");
        sb.append("|---|---|---|---|---|---|\n");
        for (Family f : FAMILIES) {
            sb.append("| `").append(f.key()).append("` | ").append(f.isaSection()).append(" | ").append(f.group())
                    .append(" | yes | ").append(f.modifiers() != null ? "yes" : "no").append(" | ").append(f.emulator() ? "yes" : "no")
                    .append(" |\n");
        }
        sb.append("\n## Emulator limits\n\n");
        sb.append("A form the emulator does not execute fails the module load with `CUDA_ERROR_NOT_SUPPORTED` and a log line naming\n");
        sb.append("the instruction and its position.\n\n");
        for (Family f : FAMILIES) {
            String lim = EMULATED.get(f.key());
            if (lim != null && !lim.isEmpty()) sb.append("- `").append(f.key()).append("`: ").append(lim).append('\n');
        }
        return sb.toString();
    }
}
