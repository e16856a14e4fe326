package dev.zluda.ptx.ir;

import dev.zluda.ptx.ir.Operand.*;

import java.util.List;
import java.util.Locale;

/**
 * The IR as text, one instruction a line, for tests and {@code --dump-ir}-style debugging: the opcode, every modifier
 * with what it was decoded as ({@code .and/boolop}, {@code .f32/type}), and the resolved operands — registers with
 * their declared type ({@code %r1:u32}), variables with their space ({@code sm@shared}), special registers
 * ({@code sreg:%tid.x}), addresses as base plus offset ({@code [%rd1:b64+16]}), float literals by kind.
 */
public final class IrPrinter {
    private IrPrinter() {}

    /** Every instruction of a function body, one per line, labels as {@code L:} lines, nested blocks indented. */
    public static String print(Stmt.Block body) {
        StringBuilder sb = new StringBuilder();
        block(body, sb, "");
        return sb.toString();
    }

    private static void block(Stmt.Block b, StringBuilder sb, String indent) {
        for (Stmt s : b.statements()) {
            switch (s) {
                case Instr x -> sb.append(indent).append(print(x)).append('\n');
                case Stmt.Label l -> sb.append(indent).append(l.name()).append(":\n");
                case Stmt.Block inner -> {
                    sb.append(indent).append("{\n");
                    block(inner, sb, indent + "  ");
                    sb.append(indent).append("}\n");
                }
                default -> {}
            }
        }
    }

    /** One instruction: {@code [@p ]OPCODE mod/kind ... | operand, operand}. */
    public static String print(Instr x) {
        StringBuilder sb = new StringBuilder();
        if (x.guard() != null) sb.append('@').append(x.guardNegated() ? "!" : "").append(operand(x.guard())).append(' ');
        sb.append(x.opcode().name());
        for (Mod m : x.mods()) sb.append(' ').append(m.text()).append('/').append(kind(m));
        if (x.arity() > 0) sb.append(" |");
        for (int i = 0; i < x.arity(); i++) sb.append(i == 0 ? " " : ", ").append(operand(x.op(i)));
        return sb.toString();
    }

    /** What a modifier was decoded as: {@code type}, {@code rounding}, {@code boolop}, {@code flag}, ... */
    public static String kind(Mod m) {
        return m.getClass().getSimpleName().toLowerCase(Locale.ROOT);
    }

    /** One operand. */
    public static String operand(Operand o) {
        return switch (o) {
            case Reg r -> r.name() + (r.component() >= 0 ? "." + "xyzw".charAt(r.component()) : "") + ":"
                    + (r.type() == null ? "?" : r.type().ptxName().substring(1));
            case Var v -> v.name() + "@" + v.space().text().substring(1);
            case Special s -> "sreg:" + s.name() + (s.component() >= 0 ? "." + "xyzw".charAt(s.component()) : "");
            case Func f -> "fn:" + f.name();
            case Label l -> "label:" + l.name();
            case Sink s -> "_";
            case Unknown u -> "?" + u.name();
            case IntImm i -> Long.toString(i.value());
            case FloatImm f -> (f.negated() ? "-" : "") + switch (f.kind()) {
                case DECIMAL -> "dec:" + f.value();
                case HEX_F32 -> String.format("0f%08X", f.bits());
                case HEX_F64 -> String.format("0d%016X", f.bits());
            };
            case Sum s -> (s.generic() ? "generic(" + operand(s.base()) + ")" : operand(s.base())) + offset(s.offset());
            case Not n -> "!" + operand(n.inner());
            case Address a -> "[" + (a.base() == null ? Long.toString(a.offset()) : operand(a.base()) + offset(a.offset())) + "]";
            case AddressList a -> "[" + list(a.elements()) + "]";
            case Vec v -> {
                if (v.lanes().isEmpty()) yield "{" + list(v.elements()) + "}";
                StringBuilder sb = new StringBuilder("{");
                for (Lane l : v.lanes()) {
                    if (sb.length() > 1) sb.append(", ");
                    sb.append(operand(l.value())).append('@').append(l.offset()).append('/').append(l.bits());
                }
                yield sb.append('}').toString();
            }
            case PredPair p -> operand(p.first()) + "|" + operand(p.second());
            case Tuple t -> "(" + list(t.elements()) + ")";
            case Malformed m -> "<malformed " + m.source() + ">";
        };
    }

    private static String offset(long off) {
        return off == 0 ? "" : off > 0 ? "+" + off : Long.toString(off);
    }

    private static String list(List<Operand> ops) {
        StringBuilder sb = new StringBuilder();
        for (Operand o : ops) sb.append(sb.isEmpty() ? "" : ", ").append(operand(o));
        return sb.toString();
    }
}
