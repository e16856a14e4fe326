package dev.zluda.runtime.emulator;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.zluda.runtime.emulator.JitAnalysis.Region;

import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

/**
 * Compiles a kernel's {@link Program} to JVM bytecode (the JDK's ClassFile API, {@code java.lang.classfile}): one
 * hidden class per kernel ({@link JitKernel}), defined in this package.
 *
 * <p><b>Why the translated program and not the PTX IR.</b> The {@link Translator} has already resolved every operand
 * to a register slot, inlined device functions, laid out frames and decided each instruction's semantics in one
 * {@link Op} object. Compiling from those objects keeps one source of truth for what an instruction computes: the
 * compiled code calls the same per-lane methods of the same objects the interpreter runs ({@code IntOps.Alu.compute},
 * {@code FloatOps.Arith.f32}, {@code ConvertOps.Cvt.lane}, the memory checks of {@link Warp}), and inlines only the
 * simplest ones (integer add, f32 fma, 32-bit compares, moves) in the same Java expressions; any instruction it does
 * not compile keeps running as its {@link Op}, so nothing the interpreter executes is lost.
 *
 * <p><b>Regions.</b> A region is a range of instructions {@code [lo, hi]} that only compute into registers and
 * predicates or read memory ({@code ld} without {@code .acquire}, {@code cvta}, {@code mov}, integer, float, compare
 * and conversion instructions) and branch among themselves: every branch goes to an instruction at or after
 * {@code lo}, either inside the region or past {@code hi}. The compiled code runs a region for the warp's running
 * group one lane at a time, each lane along its own path with its registers in JVM locals (loaded at the start,
 * written back at the end where they are live, {@link JitAnalysis#liveness}), as if it were one thread of a C program. That is
 * the interpreter's result because such a region has no effect other lanes can see: its reads of memory cannot
 * observe each other, and as every exit lies past the region, the interpreter (which always runs the lowest program
 * counter first) would also have run every lane through the whole region before anything else. The lanes are
 * regrouped afterwards exactly as the interpreter would ({@link Warp#afterRegion}), so divergence, reconvergence and
 * the warp-level instructions after a region see the same groups. A lane counts its instructions as the interpreter
 * counts thread-instructions; a loop in a region stops a lane when it has run a slice's budget of instructions (so
 * spin loops still yield). A fault (a bad address) in a region hands the lanes that did not finish back to the
 * interpreter from the start of the region ({@link Warp#regionFault}), so the fault reported — kernel, thread,
 * instruction — is the one the interpreter reports.
 *
 * <p><b>Warp regions.</b> The instructions outside those regions — stores, atomics, warp-level instructions
 * ({@code shfl}, {@code vote}, {@code redux}, ...), textures, and computing stretches too short to pay lane by lane —
 * run in warp regions ({@link JitWarpEmitter}): the running group in lockstep, instruction after instruction, as the
 * interpreter's loop runs them, with its dispatch resolved at compile time (a direct call of each instruction's
 * {@link Op#exec}, uniform branches as bytecode branches) and its divergence, reconvergence, budget and fault rules
 * kept. {@code exit}, barriers, calls and {@code ret} run in the interpreter's loop between regions ({@link Warp#run}).
 */
final class JitCompiler {
    /** Most instructions in one region (so that its method stays under HotSpot's 8000-byte limit for compiling). */
    static final int MAX_REGION_OPS = 150;
    /**
     * Largest bytecode of one region method. HotSpot does not compile methods above 8000 bytes (HugeMethodLimit), and
     * in a method of several thousand it stops inlining the small helpers ({@code FloatOps.fmaRn}, {@code Mem.load}):
     * the tiled SGEMM of docs/benchmarks.md ran 20-25 % faster with its tile product in three methods of at most 2500
     * bytes than in one of 7800 (and slower again at 1200, with twice as many region boundaries).
     */
    static final int MAX_METHOD_BYTES = 2500;
    /** Most instructions in one warp region ({@link JitWarpEmitter}) before {@link #MAX_WARP_BYTES} splits it further. */
    static final int MAX_WARP_OPS = 150;
    /**
     * Largest bytecode of one warp region's method: well under HotSpot's 8000-byte limit for compiling a method at all
     * (a warp region whose method passed it would run in the bytecode interpreter, hundreds of times slower).
     */
    static final int MAX_WARP_BYTES = 4000;
    /**
     * Whether the instructions outside the lane-by-lane regions are compiled into warp regions ({@link JitWarpEmitter});
     * system property {@code zluda.jit.warp=false} leaves them to the interpreter (to compare the two in benchmarks).
     */
    static final boolean WARP_REGIONS = !"false".equals(System.getProperty("zluda.jit.warp"));
    /** Whether lane regions are compiled; system property {@code zluda.jit.lanes=false} leaves their instructions to warp regions. */
    static final boolean LANE_REGIONS = !"false".equals(System.getProperty("zluda.jit.lanes"));

    private static final AtomicLong IDS = new AtomicLong();

    static final ClassDesc CD_WARP = desc(Warp.class), CD_KERNEL = desc(JitKernel.class), CD_MEM = desc(Mem.class),
            CD_FAULT = desc(Fault.class), CD_CTA = desc(CtaRunner.class), CD_LAUNCH = desc(Launch.class),
            CD_FLOATOPS = desc(FloatOps.class), CD_SETP = desc(FloatOps.Setp.class), CD_LONGS = CD_long.arrayType(),
            CD_INTS = CD_int.arrayType(), CD_INTOPS = desc(IntOps.class);

    static ClassDesc desc(Class<?> c) {
        return ClassDesc.of(c.getName());
    }

    /**
     * The product of compiling one program: the hidden class's instance, the code array with region entries, and how
     * many regions and instructions run lane by lane ({@code regions}, {@code compiledOps}) and in warp regions
     * ({@code warpRegions}, {@code warpOps}).
     */
    record Result(JitKernel kernel, Op[] code, int regions, int compiledOps, int warpRegions, int warpOps) {}

    private final Program prog;
    private final JitAnalysis an;
    private final boolean[] leader;
    /** The objects the compiled code calls, in the hidden class's class data. */
    private final List<Object> classData = new ArrayList<>();
    private final Map<Object, Integer> dataIndex = new java.util.IdentityHashMap<>();

    private JitCompiler(Program prog) {
        this.prog = prog;
        this.an = new JitAnalysis(prog);
        this.leader = an.leader;
    }

    /**
     * Compiles {@code prog}; null when it has no region worth compiling (then the interpreter runs it as it is).
     *
     * @throws RuntimeException when the compiler fails (the caller runs the interpreter and says why with ZLUDA_DEBUG)
     */
    static Result compile(Program prog) {
        return new JitCompiler(prog).build();
    }

    /** Bytes of the kernel's parameters. */
    long paramBytes() {
        return prog.paramBytes;
    }

    // ------------------------------------------------------------------ code generation

    private Result build() {
        an.liveness();
        List<Region> regions = LANE_REGIONS ? an.regions() : List.of();
        // split regions whose method would be too large for HotSpot's optimizing compiler
        List<Region> fitted = new ArrayList<>();
        for (Region r : regions) fit(r, fitted);
        List<Region> warp = new ArrayList<>();
        if (WARP_REGIONS) for (Region r : an.warpRegions(fitted, MAX_WARP_OPS)) fitWarp(r, warp);
        if (fitted.isEmpty() && warp.isEmpty()) return null;
        Op[] jit = an.code.clone();
        int ops = 0, wops = 0;
        List<Region> all = new ArrayList<>(fitted);
        all.addAll(warp);
        for (int k = 0; k < all.size(); k++) {
            Region r = all.get(k);
            for (int e = 0; e < r.entries().length; e++) jit[r.entries()[e]] = new JitKernel.Entry(k, e, an.code[r.entries()[e]]);
            if (k < fitted.size()) ops += r.hi() - r.lo() + 1;
            else wops += r.hi() - r.lo() + 1;
        }
        String name = "dev.zluda.runtime.emulator.JitKernel$" + sanitize(prog.name) + "$" + IDS.incrementAndGet();
        ClassDesc self = ClassDesc.of(name);
        byte[] bytes = classFile().build(self, clb -> {
            clb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
            clb.withSuperclass(CD_KERNEL);
            clb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC,
                    cob -> cob.aload(0).invokespecial(CD_KERNEL, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void).return_());
            MethodTypeDesc regionType = MethodTypeDesc.of(CD_int, CD_WARP, CD_int, CD_int, CD_int);
            clb.withMethodBody("run", MethodTypeDesc.of(CD_int, CD_int, CD_int, CD_int, CD_WARP, CD_int), ClassFile.ACC_FINAL, cob -> {
                Label[] cases = new Label[all.size()];
                List<java.lang.classfile.instruction.SwitchCase> sc = new ArrayList<>();
                for (int k = 0; k < cases.length; k++) {
                    cases[k] = cob.newLabel();
                    sc.add(java.lang.classfile.instruction.SwitchCase.of(k, cases[k]));
                }
                Label dflt = cob.newLabel();
                cob.iload(1).tableswitch(0, cases.length - 1, dflt, sc);
                for (int k = 0; k < cases.length; k++) {
                    cob.labelBinding(cases[k]);
                    cob.aload(4).iload(2).iload(3).iload(5).invokestatic(self, (k < fitted.size() ? "r" : "w") + k, regionType).ireturn();
                }
                cob.labelBinding(dflt);
                cob.iconst_m1().ireturn();
            });
            for (int k = 0; k < fitted.size(); k++) {
                Region r = fitted.get(k);
                clb.withMethodBody("r" + k, regionType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, cob -> new JitRegionEmitter(this, an, r, cob).emit());
            }
            for (int k = fitted.size(); k < all.size(); k++) {
                Region r = all.get(k);
                clb.withMethodBody("w" + k, regionType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, cob -> new JitWarpEmitter(this, an, r, cob).emit());
            }
        });
        try {
            MethodHandles.Lookup lk = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(classData), true);
            JitKernel k = (JitKernel) lk.findConstructor(lk.lookupClass(), MethodType.methodType(void.class)).invoke();
            return new Result(k, jit, fitted.size(), ops, warp.size(), wops);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot define the compiled class of kernel " + prog.name + ": " + t, t);
        }
    }

    private static String sanitize(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 60; i++) {
            char c = s.charAt(i);
            b.append(Character.isJavaIdentifierPart(c) ? c : '_');
        }
        return b.toString();
    }

    private static ClassFile classFile() {
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(JitCompiler.class.getClassLoader()))));
    }

    /** Adds {@code r} to {@code out}, split at block boundaries until each part's method is small enough. */
    private void fit(Region r, List<Region> out) {
        int size = trialSize(r);
        if (size <= MAX_METHOD_BYTES || r.hi() == r.lo()) {
            out.add(r);
            return;
        }
        int mid = (r.lo() + r.hi() + 1) / 2;
        // the second part begins at a block boundary: make mid a leader (lanes may enter there)
        leader[mid] = true;
        Region a = an.validated(r.lo(), mid - 1), b = an.validated(mid, r.hi());
        if (a != null) fit(a, out);
        if (b != null) fit(b, out);
    }


    /** Adds warp region {@code r} to {@code out}, halved until each part's method is at most {@link #MAX_WARP_BYTES}. */
    private void fitWarp(Region r, List<Region> out) {
        if (r.hi() == r.lo() || trialSize(r, true) <= MAX_WARP_BYTES) {
            out.add(r);
            return;
        }
        int mid = (r.lo() + r.hi() + 1) / 2;
        fitWarp(an.warpRegion(r.lo(), mid - 1), out);
        fitWarp(an.warpRegion(mid, r.hi()), out);
    }

    private int trialSize(Region r) {
        return trialSize(r, false);
    }

    private int trialSize(Region r, boolean warp) {
        int mark = classData.size();
        Map<Object, Integer> savedIndex = new java.util.IdentityHashMap<>(dataIndex);
        int[] size = {0};
        var model = ClassFile.of().parse(classFile().build(ClassDesc.of("dev.zluda.runtime.emulator.JitTrial"), clb -> clb.withMethodBody("r",
                MethodTypeDesc.of(CD_int, CD_WARP, CD_int, CD_int, CD_int), ClassFile.ACC_STATIC, cob -> {
                    if (warp) new JitWarpEmitter(this, an, r, cob).emit();
                    else new JitRegionEmitter(this, an, r, cob).emit();
                })));
        size[0] = ((java.lang.classfile.attribute.CodeAttribute) model.methods().getFirst().code().orElseThrow()).codeLength();
        while (classData.size() > mark) classData.removeLast();
        dataIndex.clear();
        dataIndex.putAll(savedIndex);
        return size[0];
    }

    /** The class-data constant for object {@code o} (an {@link Op} the compiled code calls), typed as its class. */
    DynamicConstantDesc<?> constant(Object o) {
        int i = dataIndex.computeIfAbsent(o, x -> {
            classData.add(x);
            return classData.size() - 1;
        });
        return DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME, desc(o.getClass()), i);
    }

}
