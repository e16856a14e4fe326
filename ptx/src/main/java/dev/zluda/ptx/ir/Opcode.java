package dev.zluda.ptx.ir;

import dev.zluda.ptx.InstructionTable;

import java.util.HashMap;
import java.util.Map;

/**
 * The PTX instruction families of {@link InstructionTable} (PTX ISA 9.0, chapter 9.7), one constant each: an opcode
 * plus the leading modifiers that make it a distinct instruction ({@code cp.async.bulk.tensor} is
 * {@link #CP_ASYNC_BULK_TENSOR}). {@code mad.lo.cc} and {@code mad.hi.cc} are {@link #MAD_CC} although
 * the ISA writes {@code .cc} after {@code .lo}/{@code .hi} (9.7.2.5).
 */
public enum Opcode {
    // Integer Arithmetic (PTX ISA 9.0, 9.7.1)
    ADD("add"), SUB("sub"), MUL("mul"), MAD("mad"), MUL24("mul24"), MAD24("mad24"), SAD("sad"), DIV("div"), REM("rem"),
    ABS("abs"), NEG("neg"), MIN("min"), MAX("max"), POPC("popc"), CLZ("clz"), BFIND("bfind"), FNS("fns"), BREV("brev"),
    BFE("bfe"), BFI("bfi"), SZEXT("szext"), BMSK("bmsk"), DP4A("dp4a"), DP2A("dp2a"),
    // Extended-Precision Integer Arithmetic (PTX ISA 9.0, 9.7.2)
    ADD_CC("add.cc"), ADDC("addc"), SUB_CC("sub.cc"), SUBC("subc"), MAD_CC("mad.cc"), MADC("madc"),
    // Floating-Point (PTX ISA 9.0, 9.7.3)
    TESTP("testp"), COPYSIGN("copysign"), FMA("fma"), RCP("rcp"), SQRT("sqrt"), RSQRT("rsqrt"), SIN("sin"), COS("cos"),
    LG2("lg2"), EX2("ex2"), TANH("tanh"),
    // Comparison and Selection (PTX ISA 9.0, 9.7.6)
    SET("set"), SETP("setp"), SELP("selp"), SLCT("slct"),
    // Logic and Shift (PTX ISA 9.0, 9.7.8)
    AND("and"), OR("or"), XOR("xor"), NOT("not"), CNOT("cnot"), LOP3("lop3"), SHF("shf"), SHL("shl"), SHR("shr"),
    // Data Movement and Conversion (PTX ISA 9.0, 9.7.9)
    MOV("mov"), SHFL("shfl"), PRMT("prmt"), LD("ld"), LDU("ldu"), ST("st"), ST_ASYNC("st.async"), ST_BULK("st.bulk"),
    MULTIMEM_LD_REDUCE("multimem.ld_reduce"), MULTIMEM_ST("multimem.st"), MULTIMEM_RED("multimem.red"),
    MULTIMEM_CP_ASYNC_BULK("multimem.cp.async.bulk"), MULTIMEM_CP_REDUCE_ASYNC_BULK("multimem.cp.reduce.async.bulk"),
    PREFETCH("prefetch"), PREFETCHU("prefetchu"), APPLYPRIORITY("applypriority"), DISCARD("discard"),
    CREATEPOLICY("createpolicy"), ISSPACEP("isspacep"), CVTA("cvta"), CVT("cvt"), CVT_PACK("cvt.pack"), MAPA("mapa"),
    GETCTARANK("getctarank"), CP_ASYNC("cp.async"), CP_ASYNC_COMMIT_GROUP("cp.async.commit_group"),
    CP_ASYNC_WAIT_GROUP("cp.async.wait_group"), CP_ASYNC_WAIT_ALL("cp.async.wait_all"), CP_ASYNC_BULK("cp.async.bulk"),
    CP_REDUCE_ASYNC_BULK("cp.reduce.async.bulk"), CP_ASYNC_BULK_PREFETCH("cp.async.bulk.prefetch"),
    CP_ASYNC_BULK_TENSOR("cp.async.bulk.tensor"), CP_REDUCE_ASYNC_BULK_TENSOR("cp.reduce.async.bulk.tensor"),
    CP_ASYNC_BULK_PREFETCH_TENSOR("cp.async.bulk.prefetch.tensor"),
    CP_ASYNC_BULK_COMMIT_GROUP("cp.async.bulk.commit_group"), CP_ASYNC_BULK_WAIT_GROUP("cp.async.bulk.wait_group"),
    CP_ASYNC_MBARRIER_ARRIVE("cp.async.mbarrier.arrive"), TENSORMAP_REPLACE("tensormap.replace"),
    // Texture (PTX ISA 9.0, 9.7.10)
    TEX("tex"), TLD4("tld4"), TXQ("txq"), ISTYPEP("istypep"),
    // Surface (PTX ISA 9.0, 9.7.11)
    SULD("suld"), SUST("sust"), SURED("sured"), SUQ("suq"),
    // Control Flow (PTX ISA 9.0, 9.7.12)
    BRA("bra"), BRX_IDX("brx.idx"), CALL("call"), RET("ret"), EXIT("exit"),
    // Parallel Synchronization and Communication (PTX ISA 9.0, 9.7.13)
    BAR("bar"), BARRIER("barrier"), BAR_WARP_SYNC("bar.warp.sync"), BARRIER_CLUSTER("barrier.cluster"),
    MEMBAR("membar"), FENCE("fence"), ATOM("atom"), RED("red"), RED_ASYNC("red.async"), VOTE("vote"), MATCH("match"),
    REDUX("redux"), GRIDDEPCONTROL("griddepcontrol"), ELECT("elect"), MBARRIER_INIT("mbarrier.init"),
    MBARRIER_INVAL("mbarrier.inval"), MBARRIER_EXPECT_TX("mbarrier.expect_tx"),
    MBARRIER_COMPLETE_TX("mbarrier.complete_tx"), MBARRIER_ARRIVE("mbarrier.arrive"),
    MBARRIER_ARRIVE_DROP("mbarrier.arrive_drop"), MBARRIER_TEST_WAIT("mbarrier.test_wait"),
    MBARRIER_TRY_WAIT("mbarrier.try_wait"), MBARRIER_PENDING_COUNT("mbarrier.pending_count"),
    TENSORMAP_CP_FENCEPROXY("tensormap.cp_fenceproxy"),
    CLUSTERLAUNCHCONTROL_TRY_CANCEL("clusterlaunchcontrol.try_cancel"),
    CLUSTERLAUNCHCONTROL_QUERY_CANCEL("clusterlaunchcontrol.query_cancel"), ACTIVEMASK("activemask"),
    // Warp Level Matrix Multiply-Accumulate (PTX ISA 9.0, 9.7.14)
    WMMA_LOAD("wmma.load"), WMMA_STORE("wmma.store"), WMMA_MMA("wmma.mma"), MMA("mma"), MMA_SP("mma.sp"),
    LDMATRIX("ldmatrix"), STMATRIX("stmatrix"), MOVMATRIX("movmatrix"),
    // Asynchronous Warpgroup Level Matrix Multiply-Accumulate (PTX ISA 9.0, 9.7.15)
    WGMMA_MMA_ASYNC("wgmma.mma_async"), WGMMA_MMA_ASYNC_SP("wgmma.mma_async.sp"), WGMMA_FENCE("wgmma.fence"),
    WGMMA_COMMIT_GROUP("wgmma.commit_group"), WGMMA_WAIT_GROUP("wgmma.wait_group"),
    // TensorCore 5th Generation (PTX ISA 9.0, 9.7.16)
    TCGEN05_ALLOC("tcgen05.alloc"), TCGEN05_DEALLOC("tcgen05.dealloc"),
    TCGEN05_RELINQUISH_ALLOC_PERMIT("tcgen05.relinquish_alloc_permit"), TCGEN05_LD("tcgen05.ld"),
    TCGEN05_ST("tcgen05.st"), TCGEN05_WAIT("tcgen05.wait"), TCGEN05_CP("tcgen05.cp"), TCGEN05_SHIFT("tcgen05.shift"),
    TCGEN05_MMA("tcgen05.mma"), TCGEN05_MMA_SP("tcgen05.mma.sp"), TCGEN05_MMA_WS("tcgen05.mma.ws"),
    TCGEN05_MMA_WS_SP("tcgen05.mma.ws.sp"), TCGEN05_COMMIT("tcgen05.commit"), TCGEN05_FENCE("tcgen05.fence"),
    // Stack Manipulation (PTX ISA 9.0, 9.7.17)
    STACKSAVE("stacksave"), STACKRESTORE("stackrestore"), ALLOCA("alloca"),
    // Video (PTX ISA 9.0, 9.7.18)
    VADD("vadd"), VSUB("vsub"), VABSDIFF("vabsdiff"), VMIN("vmin"), VMAX("vmax"), VSHL("vshl"), VSHR("vshr"),
    VMAD("vmad"), VSET("vset"), VADD2("vadd2"), VSUB2("vsub2"), VAVRG2("vavrg2"), VABSDIFF2("vabsdiff2"),
    VMIN2("vmin2"), VMAX2("vmax2"), VSET2("vset2"), VADD4("vadd4"), VSUB4("vsub4"), VAVRG4("vavrg4"),
    VABSDIFF4("vabsdiff4"), VMIN4("vmin4"), VMAX4("vmax4"), VSET4("vset4"),
    // Miscellaneous (PTX ISA 9.0, 9.7.19)
    BRKPT("brkpt"), NANOSLEEP("nanosleep"), PMEVENT("pmevent"), TRAP("trap"), SETMAXNREG("setmaxnreg");

    private static final Map<String, Opcode> BY_KEY = new HashMap<>();
    private static final Map<Opcode, InstructionTable.Family> FAMILY = new java.util.EnumMap<>(Opcode.class);

    static {
        for (Opcode o : values()) BY_KEY.put(o.key, o);
        for (InstructionTable.Family f : InstructionTable.families()) {
            Opcode o = BY_KEY.get(f.key());
            if (o == null) throw new IllegalStateException("no opcode for family " + f.key());
            FAMILY.put(o, f);
        }
    }

    private final String key;

    Opcode(String key) {
        this.key = key;
    }

    /** The family's key as {@link InstructionTable} spells it ({@code "mbarrier.try_wait"}). */
    public String key() {
        return key;
    }

    /** The first word of the key: the opcode as written ({@code "mbarrier"}). */
    public String mnemonic() {
        int d = key.indexOf('.');
        return d < 0 ? key : key.substring(0, d);
    }

    /** The family's row of {@link InstructionTable}. */
    public InstructionTable.Family family() {
        return FAMILY.get(this);
    }

    /** The opcode of a family key, or null. */
    public static Opcode of(String key) {
        return BY_KEY.get(key);
    }
}
