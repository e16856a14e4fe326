package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operands each instruction family of {@link InstructionTable} takes (PTX ISA 9.0, chapter 9.7, the
 * "Syntax" paragraph of each instruction), in one table beside the family table: how many, and for the
 * families checked exactly, of which kind (register, immediate, vector, address, predicate pair, call
 * list). {@link Semantics} checks every instruction against it, so that {@code add.f32 %f1, %f2, %f3, %f4;}
 * is an error ({@code add.f32 takes 3 operands (d, a, b), found 4}) and the driver's module load fails with
 * CUDA_ERROR_INVALID_PTX, as {@code ptxas} rejects it ("Arguments mismatch for instruction").
 *
 * <p><b>Checked exactly</b> (operand count and kind; optional operands are the trailing ones the ISA writes
 * in braces): integer, extended-precision and floating-point arithmetic ({@code add sub mul mad mul24 mad24
 * sad div rem abs neg min max (a third source only for {@code .f32}) popc clz bfind fns brev bfe bfi szext bmsk dp4a dp2a add.cc addc sub.cc subc
 * mad.cc madc testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2 tanh}), comparison and selection
 * ({@code set setp selp slct}, {@code setp}'s destination may be {@code p|q}, the {@code .and/.or/.xor} forms
 * take the combining predicate {@code c}), logic and shift ({@code and or xor not cnot lop3 shf shl shr}),
 * {@code mov} (either side may be a vector, as in {@code mov.b64 %rd, {%r1, %r2}}), {@code shfl}
 * ({@code .sync} forms take the member mask), {@code prmt}, {@code ld ldu st} (address in brackets,
 * optional cache policy), {@code isspacep cvta cvt.pack mapa getctarank}, {@code cp.async} and its group
 * instructions, {@code bra brx.idx ret exit}, {@code bar barrier} ({@code .sync a{, b}}, {@code .arrive a, b}),
 * {@code bar.warp.sync barrier.cluster membar activemask vote match redux elect atom red},
 * {@code mbarrier.*}, {@code wmma.* mma ldmatrix stmatrix movmatrix}, {@code wgmma.fence/commit_group/wait_group},
 * {@code stacksave stackrestore alloca} and the miscellaneous instructions.
 *
 * <p><b>Checked by bounds only</b> (the operand count lies in a range wide enough for every form of the
 * family; kinds are not checked), for families with many forms whose operand lists differ by modifier:
 * {@code cvt} (2 to 4: the packing and {@code .rs} forms), {@code fence} (0 to 2: {@code fence.proxy.tensormap}),
 * {@code call} (1 to 4), {@code bar.red}/{@code barrier.red} (3 to 4), {@code tex} (2 to 6), {@code tld4} (2 to 4),
 * {@code txq} (2 to 3), {@code suld sust sured suq istypep} (2), {@code mma} (4 to 10: block scale; {@code mma.sp::ordered_metadata} is looked up as {@code mma}),
 * {@code mma.sp} (6 to 10), the {@code wgmma.mma_async} forms (4 to 10), every {@code tcgen05.*},
 * every bulk and tensor copy ({@code cp.async.bulk*}, {@code cp.reduce.async.bulk*}, {@code multimem.*},
 * {@code st.async}, {@code red.async}, {@code st.bulk}, {@code tensormap.*}, {@code clusterlaunchcontrol.*}),
 * {@code prefetch prefetchu applypriority discard createpolicy} and the video instructions.
 */
public final class InstructionOperands {

    private InstructionOperands() {}

    /** What an operand slot accepts. */
    private enum Kind {
        /** a register, immediate, symbol or {@code !p}. */
        VALUE,
        /** a register or symbol (not an immediate). */
        REGISTER,
        /** a register or {@code p|q}. */
        PRED_PAIR,
        /** a register or a vector {@code {a, b}}. */
        VECTOR,
        /** a register, immediate or a vector {@code {a, b}}. */
        VECTOR_VALUE,
        /** {@code [address]}. */
        ADDRESS,
        /** a register, symbol or {@code (a, b)} list. */
        TUPLE,
        /** anything. */
        ANY
    }

    private record Slot(String name, Kind kind, boolean optional) {}

    /**
     * One operand form.
     *
     * @param when  modifiers of which one selects this form (empty: the family's default form)
     * @param slots the operand slots (exact forms) or {@code null} (bounded forms)
     */
    private record Form(List<String> when, List<Slot> slots, int min, int max) {
        boolean exact() { return slots != null; }

        String syntax() {
            List<String> s = new ArrayList<>();
            for (Slot x : slots) s.add(x.name());
            return String.join(", ", s);
        }
    }

    // family keys [(modifiers selecting this form)] | operands
    // operand decorations: [a] address, {d} register or vector, (r) register or call list, d|p register or
    // predicate pair, =d a register (no immediate), *x anything, x? optional (trailing);
    // "~ MIN..MAX" instead of operands: bounds only.
    private static final String TABLE = """
            add sub mul div rem min max and or xor copysign mul24 szext bmsk | =d a b
            add.cc addc sub.cc subc shl shr | =d a b
            min(.f32) max(.f32) | =d a b c?
            mad mad24 sad fma mad.cc madc selp slct prmt shf dp4a dp2a fns bfe | =d a b c
            bfi | =f a b c d
            abs neg not cnot popc clz bfind brev rcp sqrt rsqrt sin cos lg2 ex2 tanh | =d a
            testp isspacep | =p a
            set | =d a b
            set(.and .or .xor) | =d a b c
            setp | =p|q a b
            setp(.and .or .xor) | =p|q a b c
            lop3 | =d a b c immLut
            lop3(.and .or) | =d|p a b c immLut q
            mov | ={d} {a}
            shfl | =d|p a b c
            shfl(.sync) | =d|p a b c membermask
            ld ldu | ={d} [a] cache-policy?
            st | [a] {b} cache-policy?
            cvta getctarank | =d a
            mapa | =d a b
            cvt | ~ 2..4
            cvt.pack | =d a b c?
            cp.async | [dst] [src] cp-size src-size? cache-policy?
            cp.async.commit_group cp.async.wait_all | ~ 0..0
            cp.async.wait_group cp.async.bulk.wait_group wgmma.wait_group | n
            cp.async.bulk.commit_group wgmma.fence wgmma.commit_group | ~ 0..0
            cp.async.mbarrier.arrive | [addr]
            bra | =label
            brx.idx | index =tlist
            call | ~ 1..4
            ret exit trap brkpt membar griddepcontrol barrier.cluster | ~ 0..0
            fence | ~ 0..2
            bar barrier | a b?
            bar(.arrive) barrier(.arrive) | a b
            bar(.red) barrier(.red) | ~ 3..4
            bar.warp.sync | membermask
            atom | ={d} [a] {b} cache-policy?
            atom(.cas) | ={d} [a] b c cache-policy?
            red | [a] {b} cache-policy?
            vote | =d a
            vote(.sync) | =d a membermask
            match | =d|p a membermask
            redux | =d a membermask
            elect | =d|p membermask
            activemask stacksave | =d
            stackrestore nanosleep pmevent setmaxnreg | a
            alloca | =ptr size align?
            mbarrier.init mbarrier.expect_tx mbarrier.complete_tx | [addr] count
            mbarrier.inval | [addr]
            mbarrier.arrive mbarrier.arrive_drop | =state [addr] count?
            mbarrier.test_wait | =waitComplete [addr] state
            mbarrier.try_wait | =waitComplete [addr] state suspendTimeHint?
            mbarrier.pending_count | =count state
            wmma.load | ={d} [a] stride?
            wmma.store | [a] {b} stride?
            wmma.mma | ={d} {a} {b} {c}
            mma | ~ 4..10
            mma.sp | ~ 6..10
            ldmatrix | ={d} [a]
            stmatrix | [a] {r}
            movmatrix | =d a
            wgmma.mma_async | ~ 4..8
            wgmma.mma_async.sp | ~ 6..10
            tex | ~ 2..6
            tld4 | ~ 2..4
            txq | ~ 2..3
            istypep suld sust sured suq | ~ 2..2
            prefetch prefetchu | ~ 1..1
            applypriority discard | ~ 2..2
            createpolicy | ~ 1..4
            st.async red.async | ~ 2..3
            st.bulk | ~ 3..3
            multimem.ld_reduce multimem.st multimem.red | ~ 2..2
            multimem.cp.async.bulk multimem.cp.reduce.async.bulk | ~ 3..4
            cp.async.bulk cp.reduce.async.bulk | ~ 3..6
            cp.async.bulk.prefetch | ~ 2..3
            cp.async.bulk.tensor | ~ 2..6
            cp.reduce.async.bulk.tensor | ~ 2..3
            cp.async.bulk.prefetch.tensor | ~ 1..3
            tensormap.replace | ~ 2..3
            tensormap.cp_fenceproxy | ~ 3..3
            clusterlaunchcontrol.try_cancel clusterlaunchcontrol.query_cancel | ~ 2..2
            tcgen05.alloc tcgen05.dealloc tcgen05.cp | ~ 2..2
            tcgen05.relinquish_alloc_permit tcgen05.wait tcgen05.fence | ~ 0..0
            tcgen05.ld | ~ 2..4
            tcgen05.st | ~ 2..3
            tcgen05.shift | ~ 1..1
            tcgen05.commit | ~ 1..2
            tcgen05.mma tcgen05.mma.ws | ~ 4..8
            tcgen05.mma.sp tcgen05.mma.ws.sp | ~ 5..9
            vadd vsub vabsdiff vmin vmax vshl vshr vset | ~ 3..4
            vmad | ~ 4..4
            vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4 | ~ 3..4
            """;

    private static final Map<String, List<Form>> FORMS = new HashMap<>();

    static {
        for (String line : TABLE.strip().split("\n")) {
            String[] parts = line.split("\\|", 2);
            String rhs = parts[1].trim();
            Form proto;
            if (rhs.startsWith("~")) {
                String[] b = rhs.substring(1).trim().split("\\.\\.");
                proto = new Form(List.of(), null, Integer.parseInt(b[0]), Integer.parseInt(b[1]));
            } else {
                List<Slot> slots = new ArrayList<>();
                int min = 0;
                for (String t : rhs.split(" +")) {
                    boolean opt = t.endsWith("?");
                    String s = t;
                    boolean reg = s.startsWith("=");
                    if (reg) s = s.substring(1);
                    Kind k;
                    if (s.startsWith("[")) k = Kind.ADDRESS;
                    else if (s.startsWith("{")) k = reg ? Kind.VECTOR : Kind.VECTOR_VALUE;
                    else if (s.startsWith("(")) k = Kind.TUPLE;
                    else if (s.startsWith("*")) { k = Kind.ANY; s = s.substring(1); }
                    else if (s.contains("|")) k = Kind.PRED_PAIR;
                    else k = reg ? Kind.REGISTER : Kind.VALUE;
                    if (!opt) {
                        if (min != slots.size()) throw new IllegalStateException("optional operand before a required one: " + line);
                        min++;
                    }
                    slots.add(new Slot(s, k, opt));
                }
                proto = new Form(List.of(), List.copyOf(slots), min, slots.size());
            }
            for (String key : parts[0].trim().split(" +(?![^(]*\\))")) {
                List<String> when = List.of();
                int paren = key.indexOf('(');
                if (paren >= 0) {
                    when = List.of(key.substring(paren + 1, key.length() - 1).trim().split(" +"));
                    key = key.substring(0, paren);
                }
                String k0 = key;
                if (InstructionTable.families().stream().noneMatch(f -> f.key().equals(k0)))
                    throw new IllegalStateException("operand table names unknown family " + key);
                List<Form> l = FORMS.computeIfAbsent(key, k -> new ArrayList<>());
                Form f = new Form(when, proto.slots(), proto.min(), proto.max());
                if (when.isEmpty()) l.add(f); else l.addFirst(f);
            }
        }
    }

    /** Whether the table lists the family's operands ({@code true} for every family of {@link InstructionTable}). */
    public static boolean covers(String familyKey) {
        return FORMS.containsKey(familyKey);
    }

    /** Whether the family's operands are checked exactly (count and kind) rather than by bounds only. */
    public static boolean exact(String familyKey) {
        List<Form> l = FORMS.get(familyKey);
        return l != null && l.stream().allMatch(Form::exact);
    }

    /** A problem with an instruction's operands: where and what. */
    public record Problem(Loc loc, String message) {}

    /**
     * Checks an instruction's operands against its family's form.
     *
     * @param family the instruction's family ({@link InstructionTable#lookup})
     * @param ins    the instruction
     * @return the problems found (at most one: a wrong count, or the first operand of the wrong kind), empty when the operands fit (or the family is not in the table)
     */
    public static List<Problem> check(InstructionTable.Family family, Instruction ins) {
        List<Form> forms = FORMS.get(family.key());
        if (forms == null) return List.of();
        Form form = null;
        for (Form f : forms) {
            if (f.when().isEmpty() || f.when().stream().anyMatch(ins.modifiers()::contains)) { form = f; break; }
        }
        if (form == null) return List.of();
        List<Operand> ops = ins.operands();
        int n = ops.size();
        if (n < form.min() || n > form.max()) {
            String count = form.min() == form.max()
                    ? form.min() + (form.min() == 1 ? " operand" : " operands")
                    : form.min() + " to " + form.max() + " operands";
            String syntax = form.exact() && form.max() > 0 ? " (" + form.syntax() + ")" : "";
            return List.of(new Problem(ins.loc(), ins.form() + " takes " + count + syntax + ", found " + n));
        }
        if (!form.exact()) return List.of();
        // the first operand of the wrong kind only: operands written in the wrong order are one mistake
        for (int i = 0; i < n; i++) {
            Slot s = form.slots().get(i);
            Operand o = ops.get(i);
            if (!accepts(s.kind(), o)) {
                return List.of(new Problem(locOf(o, ins.loc()), "operand " + (i + 1) + " (" + s.name() + ") of " + ins.form()
                        + " is " + describe(o) + ", expected " + expected(s.kind())));
            }
        }
        return List.of();
    }

    private static boolean accepts(Kind k, Operand o) {
        return switch (k) {
            case ANY -> true;
            case VALUE -> o instanceof Expr || o instanceof NegPred;
            case REGISTER -> o instanceof Sym;
            case PRED_PAIR -> o instanceof Sym || o instanceof PredPair;
            case VECTOR -> o instanceof Sym || o instanceof VectorOperand;
            case VECTOR_VALUE -> o instanceof Expr || o instanceof VectorOperand || o instanceof NegPred;
            case ADDRESS -> o instanceof AddressOperand;
            case TUPLE -> o instanceof Sym || o instanceof TupleOperand;
        };
    }

    private static String expected(Kind k) {
        return switch (k) {
            case ANY -> "an operand";
            case VALUE -> "a register or immediate";
            case REGISTER -> "a register or name";
            case PRED_PAIR -> "a register or a predicate pair p|q";
            case VECTOR -> "a register or a vector {...}";
            case VECTOR_VALUE -> "a register, immediate, negated predicate or vector {...}";
            case ADDRESS -> "an address [...]";
            case TUPLE -> "a register or a list (...)";
        };
    }

    private static String describe(Operand o) {
        return switch (o) {
            case Sym s -> "a register '" + s.name() + "'";
            case AddressOperand a -> "an address [...]";
            case VectorOperand v -> "a vector {...}";
            case TupleOperand t -> "a list (...)";
            case PredPair p -> "a predicate pair " + p.first() + "|" + p.second();
            case NegPred p -> "a negated predicate !" + p.name();
            case Expr e -> "an immediate";
        };
    }

    private static Loc locOf(Operand o, Loc fallback) {
        Loc l = switch (o) {
            case Sym s -> s.loc();
            case PredPair p -> p.loc();
            case NegPred p -> p.loc();
            default -> null;
        };
        return l == null || l.line() < 1 || l.column() < 1 ? fallback : l;
    }
}
