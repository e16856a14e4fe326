package dev.zluda.ptx;

import java.util.List;
import java.util.Map;

/**
 * The semantic view of an {@code .entry} or {@code .func} (PTX ISA 9.0, 11.3).
 *
 * @param name          the function's name
 * @param entry         {@code true} for a kernel ({@code .entry})
 * @param defined       {@code true} when a body was given (not only a prototype)
 * @param params        parameter layouts in order (see {@link ParamInfo})
 * @param paramSize     bytes of the parameter buffer: end of the last parameter (0 without parameters)
 * @param returnParams  return parameter layouts ({@code .func} only), laid out the same way
 * @param registers     every {@code .reg} declared in the body (all scopes), by name; ranges
 *                      {@code %r<N>} appear once under their prefix with {@code rangeCount} N
 * @param directives    performance directives by name ({@code ".maxntid"} → [256, 1, 1])
 * @param instructions  number of instructions in the body
 * @param ast           the node this was built from
 */
public record FunctionInfo(String name, boolean entry, boolean defined, List<ParamInfo> params, long paramSize,
                           List<ParamInfo> returnParams, Map<String, VariableInfo> registers,
                           Map<String, List<Long>> directives, int instructions, Ast.Function ast) {
    public FunctionInfo {
        params = List.copyOf(params);
        returnParams = List.copyOf(returnParams);
        registers = Map.copyOf(registers);
        directives = Map.copyOf(directives);
    }

    /** {@code .maxntid} (PTX ISA 9.0, 11.4.2): the block's most threads per dimension, or {@code null} without it. */
    public List<Long> maxntid() {
        return directives.get(".maxntid");
    }

    /** {@code .reqntid} (PTX ISA 9.0, 11.4.3): the block's required threads per dimension, or {@code null} without it. */
    public List<Long> reqntid() {
        return directives.get(".reqntid");
    }

    /** The parameter with this name, or {@code null}. */
    public ParamInfo param(String paramName) {
        for (ParamInfo p : params) if (p.name().equals(paramName)) return p;
        return null;
    }
}
