package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.EmulatorForms;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.ir.IrPipeline;
import dev.zluda.ptx.ir.IrModule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A PTX module loaded for the emulator: parsed and checked by the PTX front end, its {@code .global}
 * and {@code .const} variables allocated in device memory and initialised (PTX ISA 9.0, 5.4.4
 * "Initializers"), every kernel translated ({@link Kernel}). Loading fails as a whole — nothing stays
 * allocated — when the text is not valid PTX ({@link Errors#INVALID_PTX}) or uses what the emulator
 * does not execute ({@link Errors#NOT_SUPPORTED}: an instruction form not among those checked against an NVIDIA
 * GPU, {@link EmulatorForms}, or what the translator cannot run); the exception's log names file, line and column.
 */
public final class EmulatorModule {
    /** Device memory for module variables; the driver registers it as an allocation. */
    public interface Allocator {
        /**
         * @param name  the variable's name
         * @param size  bytes, at least 1
         * @param align alignment in bytes (a power of two)
         * @return the native address of {@code size} zeroed bytes
         */
        long allocate(String name, long size, long align);

        /** Frees what {@link #allocate} returned (when a load fails or the module is unloaded). */
        void free(long address);
    }

    /**
     * A module variable.
     *
     * @param name    its name
     * @param space   {@code ".global"} or {@code ".const"}
     * @param address native address of its first byte
     * @param size    bytes
     */
    public record Variable(String name, String space, long address, long size) {}

    private final String source;
    private final int ptxVersion;
    private final Map<String, Kernel> kernels;
    private final Map<String, Variable> variables;
    private final long constBytes;
    private final String infoLog;

    private EmulatorModule(String source, int ptxVersion, Map<String, Kernel> kernels, Map<String, Variable> variables, long constBytes,
                           String infoLog) {
        this.source = source;
        this.ptxVersion = ptxVersion;
        this.kernels = Collections.unmodifiableMap(kernels);
        this.variables = Collections.unmodifiableMap(variables);
        this.constBytes = constBytes;
        this.infoLog = infoLog;
    }

    /**
     * Loads PTX text.
     *
     * @param text   the module (NUL excluded)
     * @param source the name diagnostics use (a file name, or {@code module_0001_01.ptx})
     * @param alloc  where module variables go
     * @throws PtxLoadException INVALID_PTX or NOT_SUPPORTED, with a log of {@code file:line:col} lines
     */
    public static EmulatorModule load(String text, String source, Allocator alloc) throws PtxLoadException {
        return load(text, source, alloc, true);
    }

    /**
     * {@link #load(String, String, Allocator)}; with {@code onlyCheckedForms} false, instruction forms outside
     * {@link EmulatorForms} are translated too (what the translator refuses still fails): only for the conformance
     * sweep, which establishes that list.
     */
    static EmulatorModule load(String text, String source, Allocator alloc, boolean onlyCheckedForms) throws PtxLoadException {
        ParseResult parsed = Ptx.parse(text, source);
        if (!parsed.ok()) throw new PtxLoadException(Errors.INVALID_PTX, errors(parsed.diagnostics()));
        ModuleModel model = Semantics.analyze(parsed.module(), source);
        if (!model.ok()) throw new PtxLoadException(Errors.INVALID_PTX, errors(model.diagnostics()));
        IrModule ir = IrPipeline.build(parsed.module(), model, source);
        if (!ir.ok()) throw new PtxLoadException(Errors.INVALID_PTX, errors(ir.diagnostics()));
        ModuleContext mc = new ModuleContext(source, ir);
        // only the instruction forms checked bit for bit against an NVIDIA GPU run (EmulatorForms, docs/support.md)
        if (onlyCheckedForms) {
            for (Diagnostic d : EmulatorForms.refused(parsed.module(), source, Diagnostic.Severity.ERROR)) mc.error(new Loc(d.line(), d.column()), d.message());
            if (mc.errorCount() > 0) throw new PtxLoadException(Errors.NOT_SUPPORTED, mc.errors());
        }
        if (model.addressSize() != 64) {
            mc.error(new Loc(1, 1), ".address_size " + model.addressSize() + " (32-bit addressing) is not supported by the emulator: use .address_size 64");
            throw new PtxLoadException(Errors.NOT_SUPPORTED, mc.errors());
        }
        List<Long> allocated = new ArrayList<>();
        try {
            long constBytes = variables(parsed.module(), mc, alloc, allocated);
            Map<String, Kernel> kernels = new LinkedHashMap<>();
            StringBuilder info = new StringBuilder();
            for (FunctionInfo f : model.kernels()) {
                if (!f.defined()) continue;
                Kernel k = new Translator(mc, f).translate();
                if (k != null) {
                    kernels.put(f.name(), k);
                    info.append(source).append(": kernel ").append(f.name()).append(": ").append(k.instructions())
                            .append(" instructions, ").append(k.program().slots).append(" register slots, ")
                            .append(k.staticShared()).append(" bytes shared, ").append(k.localBytes()).append(" bytes local")
                            .append(k.program().callFrames.isEmpty() ? "" : ", stack bytes per call: " + k.program().callFrames).append('\n');
                }
            }
            if (mc.errorCount() > 0) throw new PtxLoadException(Errors.NOT_SUPPORTED, mc.errors());
            Map<String, Variable> vars = new LinkedHashMap<>();
            for (ModuleContext.GlobalVar g : mc.globals().values()) vars.put(g.name(), new Variable(g.name(), g.space(), g.address(), g.size()));
            return new EmulatorModule(source, targetArchitecture(model), kernels, vars, constBytes, info.toString());
        } catch (PtxLoadException | RuntimeException | Error e) {
            for (long a : allocated) alloc.free(a);
            throw e;
        }
    }

    private static List<String> errors(List<Diagnostic> ds) {
        List<String> out = new ArrayList<>();
        for (Diagnostic d : ds) if (d.isError()) out.add(d.format());
        return out;
    }

    /** Allocates and initialises module variables; returns the bytes of .const variables. */
    private static long variables(Ast.Module module, ModuleContext mc, Allocator alloc, List<Long> allocated) throws PtxLoadException {
        long constBytes = 0;
        List<Object[]> inits = new ArrayList<>();
        List<Decl> decls = new ArrayList<>();
        for (ModuleItem item : module.items()) if (item instanceof Decl d) decls.add(d);
        // function-scope .global/.const variables have static storage like module-scope ones (PTX ISA 9.0, 5.1.4,
        // 5.1.3): allocated here once; the translator finds them by name (a name also declared elsewhere is refused)
        java.util.Set<String> moduleNames = new java.util.HashSet<>();
        for (Decl d : decls) for (Declarator dc : d.declarators()) moduleNames.add(dc.name());
        List<Decl> scoped = new ArrayList<>();
        for (Ast.Function fn : module.functions()) if (fn.body() != null) functionScope(fn.body(), scoped);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Decl d : scoped) {
            for (Declarator dc : d.declarators()) {
                if (moduleNames.contains(dc.name()) || !seen.add(dc.name())) {
                    mc.error(dc.loc(), "function-scope " + d.space() + " variable '" + dc.name()
                            + "' has the name of another .global/.const variable of the module: not supported by the emulator");
                }
            }
        }
        if (mc.errorCount() == 0) decls.addAll(scoped);
        for (Decl d : decls) {
            switch (d.space()) {
                case ".shared" -> mc.moduleShared().add(d);
                case ".global", ".const" -> {
                    PtxType t = Translator.typeOf(d);
                    for (Declarator dc : d.declarators()) {
                        if (d.linkage().contains(Linkage.EXTERN)) {
                            mc.error(dc.loc(), "extern " + d.space() + " variable '" + dc.name() + "' is not defined in this module (linking is not supported)");
                            continue;
                        }
                        if (mc.globals().containsKey(dc.name())) continue;
                        long size = Math.max(1, Translator.sizeOf(d, dc));
                        long align = Math.max(Translator.alignOf(d), 1);
                        long addr = alloc.allocate(dc.name(), size, align);
                        allocated.add(addr);
                        mc.addGlobal(new ModuleContext.GlobalVar(dc.name(), d.space(), addr, size, t));
                        if (d.space().equals(".const")) constBytes += size;
                        if (dc.init() != null) inits.add(new Object[] {d, dc, addr, size});
                    }
                }
                case ".tex", ".surfref", ".samplerref", ".texref" -> {}
                default -> {
                    for (Declarator dc : d.declarators()) mc.error(dc.loc(), "module-scope " + d.space() + " variable '" + dc.name() + "' is not supported by the emulator");
                }
            }
        }
        for (Object[] in : inits) initialize(mc, (Decl) in[0], (Declarator) in[1], (Long) in[2], (Long) in[3]);
        if (mc.errorCount() > 0) throw new PtxLoadException(Errors.NOT_SUPPORTED, mc.errors());
        return constBytes;
    }

    /** The .global and .const declarations inside a function body (nested blocks included). */
    private static void functionScope(Block b, List<Decl> out) {
        for (Statement s : b.statements()) {
            if (s instanceof Decl d && (d.space().equals(".global") || d.space().equals(".const"))) out.add(d);
            else if (s instanceof Block inner) functionScope(inner, out);
        }
    }

    private static void initialize(ModuleContext mc, Decl d, Declarator dc, long addr, long size) {
        PtxType t = Translator.typeOf(d);
        if (t == null) return;
        List<Expr> flat = new ArrayList<>();
        if (!flatten(dc.init(), flat)) {
            mc.error(dc.loc(), "initializer of '" + dc.name() + "' is not supported by the emulator");
            return;
        }
        int es = t.size();
        for (int i = 0; i < flat.size() && (long) (i + 1) * es <= size; i++) {
            Expr e = flat.get(i);
            Long bits = initValue(mc, e, t);
            if (bits == null) {
                mc.error(dc.loc(), "initializer element of '" + dc.name() + "' is not a constant the emulator understands");
                return;
            }
            Mem.store(addr + (long) i * es, es, bits);
        }
    }

    private static boolean flatten(Initializer init, List<Expr> out) {
        switch (init) {
            case ExprInit e -> out.add(e.expr());
            case ListInit l -> {
                for (Initializer i : l.elements()) if (!flatten(i, out)) return false;
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private static Long initValue(ModuleContext mc, Expr e, PtxType t) {
        Expr x = e;
        while (x instanceof Paren p) x = p.inner();
        boolean neg = false;
        if (x instanceof Unary u && u.op().equals("-") && !(ModuleContext.constant(x) != null)) {
            neg = true;
            x = u.operand();
        }
        if (x instanceof HexFloat h) {
            double v = neg ? -h.value() : h.value();
            if (t.kind() != PtxType.Kind.FLOAT) return neg ? null : h.bits();
            return t == PtxType.F64 ? Double.doubleToRawLongBits(v)
                    : !h.dbl() && t == PtxType.F32 ? (long) (((int) h.bits()) ^ (neg ? 0x8000_0000 : 0)) & 0xFFFF_FFFFL
                    : t == PtxType.F32 ? Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL : FloatMath.toHalf((float) v, FloatMath.RN);
        }
        if (x instanceof FloatLit f) {
            double v = neg ? -f.value() : f.value();
            return t == PtxType.F64 ? Double.doubleToRawLongBits(v) : t == PtxType.F32 ? Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL
                    : t.kind() == PtxType.Kind.FLOAT ? FloatMath.toHalf((float) v, FloatMath.RN) : (long) v;
        }
        Long c = ModuleContext.constant(e);
        if (c != null) {
            if (t == PtxType.F64) return Double.doubleToRawLongBits(c);
            if (t == PtxType.F32) return Float.floatToRawIntBits(c) & 0xFFFF_FFFFL;
            return c;
        }
        // addresses: sym, generic(sym), sym + c
        if (e instanceof Call call && call.function().equals("generic")) e = call.arg();
        long off = 0;
        Expr base = e;
        if (e instanceof Binary b && (b.op().equals("+") || b.op().equals("-")) && ModuleContext.constant(b.right()) != null) {
            base = b.left();
            off = b.op().equals("+") ? ModuleContext.constant(b.right()) : -ModuleContext.constant(b.right());
        }
        if (base instanceof Ast.Sym s) {
            Long a = mc.globalAddress(s.name());
            if (a != null) return a + off;
            if (mc.function(s.name()) != null) return mc.functionAddress(s.name()) + off;
        }
        return null;
    }

    /** The name diagnostics use. */
    public String source() {
        return source;
    }

    /**
     * What {@code CU_FUNC_ATTRIBUTE_PTX_VERSION} reports: the virtual architecture the PTX was written
     * for, major·10 + minor, from {@code .target sm_XY} — measured on an NVIDIA H200 (driver
     * 580.159.04): 75 for nvcc 13's {@code .version 9.0 / .target sm_75} PTX, not the ISA version.
     * Falls back to the {@code .version} when the module names no {@code sm_} target.
     */
    public static int targetArchitecture(dev.zluda.ptx.ModuleModel model) {
        for (String t : model.targets()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("sm_(\\d+)[af]?").matcher(t);
            if (m.matches()) return Integer.parseInt(m.group(1));
        }
        return model.versionMajor() * 10 + model.versionMinor();
    }

    /** CU_FUNC_ATTRIBUTE_PTX_VERSION: the PTX's target architecture (see {@link #targetArchitecture}). */
    public int ptxVersion() {
        return ptxVersion;
    }

    /** The kernels by name, in source order. */
    public Map<String, Kernel> kernels() {
        return kernels;
    }

    /** The .global and .const variables by name. */
    public Map<String, Variable> variables() {
        return variables;
    }

    /** Bytes of .const variables (CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES). */
    public long constBytes() {
        return constBytes;
    }

    /** One line per kernel: instructions, registers, memory, for the JIT info log. */
    public String infoLog() {
        return infoLog;
    }
}
