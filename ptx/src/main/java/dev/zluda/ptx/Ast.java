package dev.zluda.ptx;

import java.util.List;

/**
 * The PTX abstract syntax tree: immutable records, one per construct of the PTX ISA's syntax
 * (PTX ISA 9.0, chapters 4 "Syntax", 5 "State Spaces, Types, and Variables", 9 "Instruction Set"
 * and 11 "Directives").
 *
 * <p>Conventions:
 * <ul>
 *   <li>Directive, type and modifier words keep their leading dot as written ({@code ".reg"},
 *       {@code ".u32"}, {@code ".shared::cta"}); identifiers are kept verbatim ({@code "%r1"}).</li>
 *   <li>Lists are never {@code null}; optional single values are {@code null} where documented.</li>
 *   <li>Every node that can be the subject of a diagnostic carries a {@link Loc}. All {@code Loc}
 *       values compare equal, so {@code equals} on nodes is structural: a module parsed from the
 *       printer's output equals the module that was printed.</li>
 * </ul>
 * Instructions have one generic shape ({@link Instruction}); which modifiers and operands an opcode
 * accepts is checked by {@link Semantics} against {@link InstructionTable}.
 */
public final class Ast {
    private Ast() {}

    /**
     * A source position: 1-based line and 1-based column (in characters, tabs count as one).
     * Positions are metadata: {@code equals} is true for any two {@code Loc}s and {@code hashCode}
     * is constant, so that they do not take part in structural equality of AST nodes.
     */
    public record Loc(int line, int column) {
        /** Position unknown (nodes built by hand). */
        public static final Loc NONE = new Loc(0, 0);

        @Override public boolean equals(Object o) { return o instanceof Loc; }
        @Override public int hashCode() { return 0; }
        @Override public String toString() { return line + ":" + column; }
    }

    // ------------------------------------------------------------------ module level

    /** A whole PTX module (one {@code .ptx} file), its top-level items in source order. */
    public record Module(List<ModuleItem> items) {
        public Module { items = List.copyOf(items); }

        /** The functions ({@code .entry} and {@code .func}, declarations and definitions) in order. */
        public List<Function> functions() {
            return items.stream().filter(Function.class::isInstance).map(Function.class::cast).toList();
        }
    }

    /** Anything that may appear at the top level of a module. */
    public sealed interface ModuleItem
            permits Version, Target, AddressSize, FileDirective, Section, Alias, Pragma, Function, Decl {
        Loc loc();
    }

    /** {@code .version major.minor} (ISA 11.2.1). */
    public record Version(int major, int minor, Loc loc) implements ModuleItem {}

    /** {@code .target sm_90a, texmode_independent, debug} (ISA 11.2.2): the names in order. */
    public record Target(List<String> names, Loc loc) implements ModuleItem {
        public Target { names = List.copyOf(names); }
    }

    /** {@code .address_size 32|64} (ISA 11.2.3). */
    public record AddressSize(int bits, Loc loc) implements ModuleItem {}

    /**
     * {@code .file index "name" [, timestamp, size]} (ISA 11.5.3). {@code name} is the string's
     * contents as written between the quotes (escapes not interpreted); {@code timestamp} and
     * {@code size} are {@code null} when absent.
     */
    public record FileDirective(long index, String name, Long timestamp, Long size, Loc loc) implements ModuleItem {}

    /** {@code .section .debug_xxx { ... }} (ISA 11.5.2): DWARF data emitted by {@code nvcc -G}. */
    public record Section(String name, List<SectionItem> items, Loc loc) implements ModuleItem {
        public Section { items = List.copyOf(items); }
    }

    /** One entry of a {@link Section}. */
    public sealed interface SectionItem permits SectionLabel, SectionData {}

    /** {@code label:} inside a section. */
    public record SectionLabel(String name, Loc loc) implements SectionItem {}

    /** {@code .b8 1, 2, 3} / {@code .b32 .debug_abbrev} inside a section: a data type and values. */
    public record SectionData(String type, List<SectionValue> values, Loc loc) implements SectionItem {
        public SectionData { values = List.copyOf(values); }
    }

    /** A value in {@link SectionData}. */
    public sealed interface SectionValue permits SectionRef, SectionExpr {}

    /** A reference to another section, optionally {@code +}/{@code -} an offset ({@code op} and
     * {@code offset} both {@code null} when there is none). */
    public record SectionRef(String section, String op, Expr offset) implements SectionValue {}

    /** A constant expression (label, label difference, number) in a section. */
    public record SectionExpr(Expr expr) implements SectionValue {}

    /** {@code .alias alias, target;} (ISA 11.4.5). */
    public record Alias(String alias, String target, Loc loc) implements ModuleItem {}

    /** {@code .pragma "s1", "s2";} (ISA 11.7.1) at module, function or statement level; strings
     * are the contents between the quotes. */
    public record Pragma(List<String> strings, Loc loc) implements ModuleItem, FunctionDirective, Statement {
        public Pragma { strings = List.copyOf(strings); }
    }

    /** Linking directives (ISA 11.6). */
    public enum Linkage {
        VISIBLE(".visible"), EXTERN(".extern"), WEAK(".weak"), COMMON(".common");

        private final String text;
        Linkage(String text) { this.text = text; }

        /** The directive as written, e.g. {@code ".visible"}. */
        public String text() { return text; }
    }

    /**
     * An {@code .entry} (kernel) or {@code .func} (device function), ISA 11.3.
     *
     * @param linkage      linking directives in source order
     * @param entry        {@code true} for {@code .entry}
     * @param attributes   {@code .attribute(...)} clauses written after {@code .func}
     * @param returnParams return parameters ({@code .func} only), {@code null} when there are no
     *                     parentheses before the name
     * @param name         the function's name
     * @param params       parameters, {@code null} when there are no parentheses after the name
     * @param directives   performance-tuning and other function directives after the parameters
     * @param body         the body, {@code null} for a declaration (prototype ending in {@code ;})
     */
    public record Function(List<Linkage> linkage, boolean entry, List<AttributeClause> attributes,
                           List<Decl> returnParams, String name, List<Decl> params,
                           List<FunctionDirective> directives, Block body, Loc loc) implements ModuleItem {
        public Function {
            linkage = List.copyOf(linkage);
            attributes = List.copyOf(attributes);
            returnParams = returnParams == null ? null : List.copyOf(returnParams);
            params = params == null ? null : List.copyOf(params);
            directives = List.copyOf(directives);
        }

        /** Parameters, empty when there are none. */
        public List<Decl> paramsOrEmpty() { return params == null ? List.of() : params; }

        /** Return parameters, empty when there are none. */
        public List<Decl> returnParamsOrEmpty() { return returnParams == null ? List.of() : returnParams; }
    }

    /** Something between a function's parameter list and its body. */
    public sealed interface FunctionDirective permits PerfDirective, Pragma {}

    /**
     * A performance-tuning or function-attribute directive (ISA 11.4): {@code .maxntid 256, 1, 1},
     * {@code .reqntid}, {@code .minnctapersm}, {@code .maxnreg}, {@code .maxclusterrank},
     * {@code .reqnctapercluster}, {@code .explicitcluster}, {@code .noreturn},
     * {@code .abi_preserve}, ... ({@code name} with its dot; {@code values} may be empty).
     */
    public record PerfDirective(String name, List<Long> values, Loc loc) implements FunctionDirective {
        public PerfDirective { values = List.copyOf(values); }
    }

    /** {@code .attribute(.managed)} / {@code .attribute(.unified(0x1, 0x2))} (ISA 11.5.4 / 5.4.8). */
    public record AttributeClause(List<Attribute> items) implements DeclAttr {
        public AttributeClause { items = List.copyOf(items); }
    }

    /** One attribute in an {@link AttributeClause}: its name and its arguments (may be empty). */
    public record Attribute(String name, List<Expr> args) {
        public Attribute { args = List.copyOf(args); }
    }

    // ------------------------------------------------------------------ declarations

    /**
     * A state-space declaration (ISA 5.4), at module level, in a body, or as a parameter:
     * {@code [linkage] .space {attr} declarator {, declarator}}.
     *
     * @param linkage     linking directives (module-level variables only)
     * @param space       the state space as written: {@code .reg .sreg .const .global .local
     *                    .param .shared .tex}
     * @param attrs       attributes in source order: alignment, vector width, type, {@code .ptr},
     *                    pointee space, {@code .attribute(...)}; see {@link Semantics} for their meaning
     * @param declarators the declared names
     */
    public record Decl(List<Linkage> linkage, String space, List<DeclAttr> attrs,
                       List<Declarator> declarators, Loc loc) implements ModuleItem, Statement {
        public Decl {
            linkage = List.copyOf(linkage);
            attrs = List.copyOf(attrs);
            declarators = List.copyOf(declarators);
        }
    }

    /** An attribute of a {@link Decl}. */
    public sealed interface DeclAttr permits Align, Word, SpaceAttr, AttributeClause {}

    /** {@code .align N} (bytes). */
    public record Align(long bytes) implements DeclAttr {}

    /** A dotted word: a type ({@code .u32}), vector width ({@code .v4}), {@code .ptr}, {@code .texref}, ... */
    public record Word(String text) implements DeclAttr {}

    /** A state-space keyword inside the attributes, e.g. {@code .global} in {@code .ptr .global .align 16}. */
    public record SpaceAttr(String space) implements DeclAttr {}

    /**
     * One declared name: {@code name}, {@code %r<100>} (a range of {@code rangeCount} names
     * {@code %r0 .. %r99}), {@code arr[4][2]}, {@code arr[]}, with an optional initializer.
     *
     * @param rangeCount the {@code N} of {@code name<N>}, or {@code null}
     * @param dims       array dimensions in source order (empty for scalars)
     * @param init       initializer or {@code null}
     */
    public record Declarator(String name, Long rangeCount, List<Dim> dims, Initializer init, Loc loc) {
        public Declarator { dims = List.copyOf(dims); }
    }

    /** An array dimension; {@code size} is {@code null} for {@code []}. */
    public record Dim(Expr size) {}

    /** A variable initializer (ISA 5.4.4). */
    public sealed interface Initializer permits ListInit, ExprInit, SamplerInit {}

    /** {@code {a, b, {c, d}}}. */
    public record ListInit(List<Initializer> elements) implements Initializer {
        public ListInit { elements = List.copyOf(elements); }
    }

    /** A single constant expression (may contain {@code generic(sym)} or {@code sym+offset}). */
    public record ExprInit(Expr expr) implements Initializer {}

    /** {@code { filter_mode = nearest, addr_mode_0 = wrap }} for {@code .samplerref}/{@code .texref}. */
    public record SamplerInit(List<SamplerField> fields) implements Initializer {
        public SamplerInit { fields = List.copyOf(fields); }
    }

    /** One {@code name = value} of a {@link SamplerInit}. */
    public record SamplerField(String name, Expr value) {}

    // ------------------------------------------------------------------ statements

    /** A statement in a function body. */
    public sealed interface Statement
            permits Label, Decl, Instruction, Block, LocDirective, Pragma, CallPrototype, BranchTargets, CallTargets {}

    /** {@code { statements }}: a function body or a nested scope (ISA 9.7.12.1). */
    public record Block(List<Statement> statements, Loc loc) implements Statement {
        public Block { statements = List.copyOf(statements); }
    }

    /** {@code name:}. */
    public record Label(String name, Loc loc) implements Statement {}

    /** {@code .loc file line column [, function_name label, inlined_at f l c]} (ISA 11.5.1). */
    public record LocDirective(long file, long line, long column, List<LocAttr> attrs, Loc loc) implements Statement {
        public LocDirective { attrs = List.copyOf(attrs); }
    }

    /** One {@code , name values...} suffix of a {@link LocDirective}. */
    public record LocAttr(String name, List<Expr> values) {
        public LocAttr { values = List.copyOf(values); }
    }

    /** {@code label: .callprototype [(ret)] _ (params) [.noreturn];} (ISA 11.3.4). The label is a
     * preceding {@link Label}. {@code returnParams} is {@code null} without parentheses. */
    public record CallPrototype(List<Decl> returnParams, String name, List<Decl> params, boolean noreturn, Loc loc)
            implements Statement {
        public CallPrototype {
            returnParams = returnParams == null ? null : List.copyOf(returnParams);
            params = List.copyOf(params);
        }
    }

    /** {@code label: .branchtargets L1, L2;} (ISA 11.3.5). */
    public record BranchTargets(List<String> labels, Loc loc) implements Statement {
        public BranchTargets { labels = List.copyOf(labels); }
    }

    /** {@code label: .calltargets f1, f2;} (ISA 11.3.6). */
    public record CallTargets(List<String> functions, Loc loc) implements Statement {
        public CallTargets { functions = List.copyOf(functions); }
    }

    /**
     * An instruction in generic form (ISA 9.1): {@code [@[!]p] opcode{.modifier} operands;}.
     *
     * @param guard     the guard predicate or {@code null}
     * @param opcode    the first word, e.g. {@code "ld"}, {@code "mbarrier"}
     * @param modifiers the dotted words after it, with their dots, in order:
     *                  {@code [".global", ".nc", ".v4", ".u32"]}
     * @param operands  the operands in order
     */
    public record Instruction(Guard guard, String opcode, List<String> modifiers, List<Operand> operands, Loc loc)
            implements Statement {
        public Instruction {
            modifiers = List.copyOf(modifiers);
            operands = List.copyOf(operands);
        }

        /** Opcode and modifiers joined, e.g. {@code "ld.global.nc.v4.u32"}. */
        public String form() {
            if (modifiers.isEmpty()) return opcode;
            StringBuilder sb = new StringBuilder(opcode);
            for (String m : modifiers) sb.append(m);
            return sb.toString();
        }
    }

    /** {@code @p} or {@code @!p}. */
    public record Guard(boolean negated, String predicate, Loc loc) {}

    // ------------------------------------------------------------------ operands

    /** An instruction operand (ISA 6). */
    public sealed interface Operand permits PredPair, NegPred, VectorOperand, AddressOperand, TupleOperand, Expr {}

    /** {@code p|q}: the two destination predicates of {@code setp} / {@code shfl}. */
    public record PredPair(String first, String second, Loc loc) implements Operand {}

    /** {@code !p}: a negated predicate source operand. */
    public record NegPred(String name, Loc loc) implements Operand {}

    /** {@code {a, b, c, d}}: a vector operand (elements may be {@code _} sinks). */
    public record VectorOperand(List<Operand> elements) implements Operand {
        public VectorOperand { elements = List.copyOf(elements); }
    }

    /**
     * {@code [address]} (ISA 6.4.1): usually one expression ({@code [%rd1+8]}, {@code [sym]},
     * {@code [sym+4]}); texture, surface and tensor instructions put several elements in one pair of
     * brackets ({@code [tex, {x, y}]}).
     */
    public record AddressOperand(List<Operand> elements) implements Operand {
        public AddressOperand { elements = List.copyOf(elements); }
    }

    /** {@code (a, b)}: the return and argument lists of {@code call}. */
    public record TupleOperand(List<Operand> elements) implements Operand {
        public TupleOperand { elements = List.copyOf(elements); }
    }


    // ------------------------------------------------------------------ expressions (ISA 4.6)

    /** A constant expression or a name; as an operand: a register, symbol, label or immediate. */
    public sealed interface Expr extends Operand permits Sym, IntLit, FloatLit, HexFloat, Unary, Binary, Cond, Call, Paren {}

    /**
     * A name, with an optional component/selector suffix ({@code %tid.x} → name {@code %tid},
     * component {@code .x}); {@code component} is {@code null} when absent. The position is kept as
     * two ints rather than a {@link Loc} (names are the most numerous nodes; this saves an object
     * each) and, like every position, takes no part in {@code equals}/{@code hashCode}.
     *
     * @param line   1-based line, 0 when unknown
     * @param column 1-based column, 0 when unknown
     */
    public record Sym(String name, String component, int line, int column) implements Expr {
        /** A name without a position (for ASTs built by hand). */
        public Sym(String name, String component) { this(name, component, 0, 0); }

        /** The position as a {@link Loc}. */
        public Loc loc() { return new Loc(line, column); }

        @Override public boolean equals(Object o) {
            return o instanceof Sym s && name.equals(s.name) && java.util.Objects.equals(component, s.component);
        }

        @Override public int hashCode() { return name.hashCode() * 31 + java.util.Objects.hashCode(component); }
    }

    /** Radix an integer literal was written in. */
    public enum Radix { DECIMAL, HEX, OCTAL, BINARY }

    /**
     * An integer literal (ISA 4.5.1). {@code value} holds the 64 bits (literals above
     * {@code Long.MAX_VALUE} appear negative, as unsigned 64-bit values do); {@code unsigned} is
     * the {@code U} suffix.
     */
    public record IntLit(long value, Radix radix, boolean unsigned) implements Expr {}

    /** A decimal floating-point literal as written ({@code 1.5}, {@code 2e10}); see {@link #value()}. */
    public record FloatLit(String text) implements Expr {
        /** The literal as a double. */
        public double value() { return Double.parseDouble(text); }
    }

    /**
     * A hexadecimal floating-point literal (ISA 4.5.2): {@code 0fXXXXXXXX} ({@code dbl == false}, IEEE
     * single, {@code bits} in the low 32 bits) or {@code 0dXXXXXXXXXXXXXXXX} (IEEE double).
     */
    public record HexFloat(boolean dbl, long bits) implements Expr {
        /** The value as a double (a single-precision literal is widened exactly). */
        public double value() {
            return dbl ? Double.longBitsToDouble(bits) : Float.intBitsToFloat((int) bits);
        }
    }

    /** {@code op operand} with {@code op} one of {@code - + ! ~}. */
    public record Unary(String op, Expr operand) implements Expr {}

    /** {@code left op right} with a C operator ({@code * / % + - << >> < > <= >= == != & ^ | && ||}). */
    public record Binary(String op, Expr left, Expr right) implements Expr {}

    /** {@code cond ? ifTrue : ifFalse}. */
    public record Cond(Expr cond, Expr ifTrue, Expr ifFalse) implements Expr {}

    /** {@code name(arg)}: {@code generic(sym)} in initializers, {@code 0xFF(sym)}-style masks are not supported. */
    public record Call(String function, Expr arg, Loc loc) implements Expr {}

    /** {@code (expr)}: parentheses kept so that printing reproduces the source's grouping. */
    public record Paren(Expr inner) implements Expr {}
}
