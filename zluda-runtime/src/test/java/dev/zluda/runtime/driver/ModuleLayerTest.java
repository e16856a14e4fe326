package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Modules, functions, launches and libraries through the driver API, as a native program calls them. */
class ModuleLayerTest extends DriverTestBase {
    static final int INVALID_IMAGE = 200, INVALID_PTX = 218, FILE_NOT_FOUND = 301, ILLEGAL_ADDRESS = 700, MISALIGNED_ADDRESS = 716;

    static final String PTX = """
            .version 8.5
            .target sm_80
            .address_size 64
            .global .align 4 .u32 gcount = 5;
            .global .align 4 .b32 garr[4] = {1, 2, 3, 4};
            .const .align 8 .f64 cval = 0d3FF8000000000000;
            .extern .shared .align 16 .b8 dyn[];

            .visible .entry add(.param .u64 out, .param .u32 x) .maxntid 256, 1, 1
            {
            .reg .b32 %r<8>; .reg .b64 %rd<8>;
            ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [x];
            mov.u32 %r2, %tid.x;
            ld.global.u32 %r3, [gcount];
            add.u32 %r4, %r2, %r1;
            add.u32 %r4, %r4, %r3;
            mul.wide.u32 %rd2, %r2, 4;
            add.s64 %rd2, %rd1, %rd2;
            st.global.u32 [%rd2], %r4;
            ret;
            }

            .visible .entry mixed(.param .u8 a, .param .align 8 .b8 s[24], .param .u64 out, .param .u32 n)
            {
            .reg .b64 %rd<4>; .reg .b32 %r<4>;
            ld.param.u64 %rd1, [out];
            ld.param.u64 %rd2, [s+8];
            ld.param.u32 %r1, [n];
            st.global.u64 [%rd1], %rd2;
            st.global.u32 [%rd1+8], %r1;
            ret;
            }

            .visible .entry dynk(.param .u64 out, .param .u32 n)
            {
            .local .align 4 .b8 depot[32];
            .reg .b32 %r<8>; .reg .b64 %rd<8>;
            ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];
            mov.u32 %r2, dyn;
            add.u32 %r3, %r2, %r1;
            sub.u32 %r3, %r3, 4;
            st.shared.u32 [%r3], %r1;
            ld.shared.u32 %r4, [%r3];
            st.global.u32 [%rd1], %r4;
            ret;
            }

            .visible .entry bad(.param .u64 p)
            {
            .reg .b64 %rd<4>;
            ld.param.u64 %rd1, [p];
            add.s64 %rd2, %rd1, 1099511627776;
            st.global.u32 [%rd2], 1;
            ret;
            }

            .visible .entry mis(.param .u64 p)
            {
            .reg .b64 %rd<4>; .reg .b32 %r<2>;
            ld.param.u64 %rd1, [p];
            ld.global.u32 %r1, [%rd1+2];
            ret;
            }

            .visible .entry req() .reqntid 64, 1, 1
            {
            ret;
            }
            """;

    /** A kernelParams array: each value (Long 8 bytes, Integer 4 bytes) in its own slot. */
    long params(Object... values) {
        MemorySegment arr = mem(8L * Math.max(1, values.length));
        for (int i = 0; i < values.length; i++) {
            MemorySegment slot = mem(8);
            if (values[i] instanceof Long l) slot.set(ValueLayout.JAVA_LONG, 0, l);
            else slot.set(ValueLayout.JAVA_INT, 0, (Integer) values[i]);
            arr.setAtIndex(ValueLayout.JAVA_LONG, i, addr(slot));
        }
        return addr(arr);
    }

    int attr(long f, String name) {
        MemorySegment v = mem(4);
        int id = (int) d.state.api().enumType("CUfunction_attribute").orElseThrow().members().stream()
                .filter(m -> m.name().equals("CU_FUNC_ATTRIBUTE_" + name)).findFirst().orElseThrow().value();
        assertEquals(0, d.cuFuncGetAttribute(addr(v), id, f), name);
        return i32(v);
    }

    int attrId(String name) {
        return (int) d.state.api().enumType("CUfunction_attribute").orElseThrow().members().stream()
                .filter(m -> m.name().equals("CU_FUNC_ATTRIBUTE_" + name)).findFirst().orElseThrow().value();
    }

    @Test
    void loadLaunchAndReadGlobals() {
        initWithContext();
        long m = load(PTX);
        long f = function(m, "add");
        long out = alloc(4 * 64);
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, params(out, 10), 0));
        assertEquals(0, d.cuCtxSynchronize());
        int[] r = readInts(out, 64);
        for (int t = 0; t < 64; t++) assertEquals(t + 10 + 5, r[t]);
        // cuModuleGetGlobal: initialised at load, writable from the host
        MemorySegment p = mem(8), n = mem(8);
        assertEquals(0, d.cuModuleGetGlobal_v2(addr(p), addr(n), m, cstr("garr")));
        assertEquals(16, i64(n));
        assertEquals(java.util.List.of(1, 2, 3, 4), java.util.Arrays.stream(readInts(i64(p), 4)).boxed().toList());
        assertEquals(0, d.cuModuleGetGlobal_v2(addr(p), addr(n), m, cstr("gcount")));
        assertEquals(0, d.cuMemsetD32_v2(i64(p), 100, 1));
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params(out, 0), 0));
        assertEquals(100, readInts(out, 1)[0]);
        assertEquals(0, d.cuModuleGetGlobal_v2(addr(p), 0, m, cstr("cval")));
        MemorySegment dbl = mem(8);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(dbl), i64(p), 8));
        assertEquals(1.5, dbl.get(ValueLayout.JAVA_DOUBLE, 0));
        assertEquals(CuResult.NOT_FOUND, d.cuModuleGetGlobal_v2(addr(p), addr(n), m, cstr("nothing")));
        MemorySegment fn = mem(8);
        assertEquals(CuResult.NOT_FOUND, d.cuModuleGetFunction(addr(fn), m, cstr("nothing")));
        assertEquals(CuResult.INVALID_HANDLE, d.cuModuleGetFunction(addr(fn), 0x1234, cstr("add")));
        MemorySegment count = mem(4);
        assertEquals(0, d.cuModuleGetFunctionCount(addr(count), m));
        assertEquals(6, i32(count));
        assertEquals(0, d.cuModuleUnload(m));
        assertEquals(CuResult.INVALID_HANDLE, d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params(out, 0), 0), "unloaded");
        assertEquals(CuResult.INVALID_HANDLE, d.cuModuleUnload(m));
    }

    @Test
    void jitLogsAndLoadErrors() {
        initWithContext();
        MemorySegment mod = mem(8), err = mem(1024), info = mem(1024), opts = mem(4 * 5), vals = mem(8 * 5);
        int[] o = {5, 6, 3, 4, 2};
        long[] v = {addr(err), 1024, addr(info), 1024, 0};
        for (int i = 0; i < 5; i++) {
            opts.setAtIndex(ValueLayout.JAVA_INT, i, o[i]);
            vals.setAtIndex(ValueLayout.JAVA_LONG, i, v[i]);
        }
        String invalid = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  add.s32 %r1, %r2, 1;\n ret;\n}\n";
        assertEquals(INVALID_PTX, d.cuModuleLoadDataEx(addr(mod), cstr(invalid), 5, addr(opts), addr(vals)));
        String log = err.getString(0);
        assertTrue(log.matches("(?s)module_\\d{4}_01\\.ptx:6:\\d+: error: .*undefined.*"), log);
        assertEquals(log.length() + 1, vals.getAtIndex(ValueLayout.JAVA_LONG, 1), "the size option reports what was written");
        String unsupported = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n mov.u32 %r1, 1;\n vadd.u32.u32.u32.sat %r1, %r2, %r3;\n ret;\n}\n";
        vals.setAtIndex(ValueLayout.JAVA_LONG, 1, 1024);
        assertEquals(CuResult.NOT_SUPPORTED, d.cuModuleLoadDataEx(addr(mod), cstr(unsupported), 5, addr(opts), addr(vals)));
        assertTrue(err.getString(0).contains(":8:2: error: instruction 'vadd.u32.u32.u32.sat' is not supported"), err.getString(0));
        vals.setAtIndex(ValueLayout.JAVA_LONG, 1, 1024);
        vals.setAtIndex(ValueLayout.JAVA_LONG, 3, 1024);
        assertEquals(0, d.cuModuleLoadDataEx(addr(mod), cstr(PTX), 5, addr(opts), addr(vals)));
        assertEquals("", err.getString(0));
        // as NVIDIA's driver on the H200 (samples/traces/h200/matrixMul: 8192 in, 0 out for both): an empty log writes 0,
        // and without CU_JIT_LOG_VERBOSE the info log is empty
        assertEquals(0, vals.getAtIndex(ValueLayout.JAVA_LONG, 1), "empty error log: 0");
        assertEquals(0, vals.getAtIndex(ValueLayout.JAVA_LONG, 3), "no info log without CU_JIT_LOG_VERBOSE: 0");
        assertEquals("", info.getString(0));
        MemorySegment vopts = mem(4 * 6), vvals = mem(8 * 6);
        for (int i = 0; i < 5; i++) {
            vopts.setAtIndex(ValueLayout.JAVA_INT, i, o[i]);
            vvals.setAtIndex(ValueLayout.JAVA_LONG, i, v[i]);
        }
        vopts.setAtIndex(ValueLayout.JAVA_INT, 5, 12); // CU_JIT_LOG_VERBOSE
        vvals.setAtIndex(ValueLayout.JAVA_LONG, 5, 1);
        assertEquals(0, d.cuModuleLoadDataEx(addr(mod), cstr(PTX), 6, addr(vopts), addr(vvals)));
        assertTrue(info.getString(0).contains("kernel add:"), info.getString(0));
        assertEquals(info.getString(0).length() + 1, vvals.getAtIndex(ValueLayout.JAVA_LONG, 3), "the info log's size with its NUL");
        assertTrue(vals.get(ValueLayout.JAVA_FLOAT, 8 * 4) >= 0, "wall time in ms");
        MemorySegment garbage = mem(64);
        for (int i = 0; i < 63; i++) garbage.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 37 + 1));
        assertEquals(INVALID_IMAGE, d.cuModuleLoadData(addr(mod), addr(garbage)));
        assertEquals(CuResult.INVALID_VALUE, d.cuModuleLoadDataEx(addr(mod), cstr(PTX), 1, 0, 0));
    }

    /** An instruction with the wrong number of operands (add takes three) fails the load as ptxas does, the log naming its line. */
    @Test
    void operandCountMismatchIsInvalidPtx() {
        initWithContext();
        MemorySegment mod = mem(8), err = mem(1024), opts = mem(4 * 2), vals = mem(8 * 2);
        opts.setAtIndex(ValueLayout.JAVA_INT, 0, 5);
        vals.setAtIndex(ValueLayout.JAVA_LONG, 0, addr(err));
        opts.setAtIndex(ValueLayout.JAVA_INT, 1, 6);
        vals.setAtIndex(ValueLayout.JAVA_LONG, 1, 1024);
        String ptx = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<4>;\n\tadd.f32 %f1, %f3, %f2, %f1;\n\tret;\n}\n";
        assertEquals(INVALID_PTX, d.cuModuleLoadDataEx(addr(mod), cstr(ptx), 2, addr(opts), addr(vals)));
        assertTrue(err.getString(0).matches("module_\\d{4}_01\\.ptx:7:2: error: add\\.f32 takes 3 operands \\(d, a, b\\), found 4"), err.getString(0));
    }

    @Test
    void loadFromFile() throws Exception {
        initWithContext();
        Path f = Files.createTempFile("zluda", ".ptx");
        try {
            Files.writeString(f, PTX);
            MemorySegment mod = mem(8);
            assertEquals(0, d.cuModuleLoad(addr(mod), cstr(f.toString())));
            function(i64(mod), "mis");
        } finally {
            Files.delete(f);
        }
        assertEquals(FILE_NOT_FOUND, d.cuModuleLoad(addr(mem(8)), cstr(f + ".missing")));
    }

    @Test
    void functionAttributesAndParameters() {
        initWithContext();
        long m = load(PTX);
        long add = function(m, "add"), dyn = function(m, "dynk"), req = function(m, "req");
        assertEquals(256, attr(add, "MAX_THREADS_PER_BLOCK"), ".maxntid");
        assertEquals(64, attr(req, "MAX_THREADS_PER_BLOCK"), ".reqntid");
        assertEquals(1024, attr(dyn, "MAX_THREADS_PER_BLOCK"));
        assertEquals(0, attr(add, "SHARED_SIZE_BYTES"));
        assertEquals(8, attr(add, "CONST_SIZE_BYTES"));
        assertEquals(32, attr(dyn, "LOCAL_SIZE_BYTES"));
        assertTrue(attr(add, "NUM_REGS") > 0);
        // the target architecture (.target sm_80), as an H200 reports it (75 for nvcc's .target sm_75
        // under .version 9.0: samples/traces/h200/cudart_templates), not the ISA .version 8.5
        assertEquals(80, attr(add, "PTX_VERSION"));
        assertEquals(86, attr(add, "BINARY_VERSION"));
        assertEquals(48 << 10, attr(dyn, "MAX_DYNAMIC_SHARED_SIZE_BYTES"));
        // parameter layout (cuFuncGetParamInfo): .u8 at 0, 24-byte struct aligned to 8, .u64, .u32
        long mixed = function(m, "mixed");
        MemorySegment off = mem(8), size = mem(8);
        long[][] want = {{0, 1}, {8, 24}, {32, 8}, {40, 4}};
        for (int i = 0; i < 4; i++) {
            assertEquals(0, d.cuFuncGetParamInfo(mixed, i, addr(off), addr(size)));
            assertEquals(want[i][0], i64(off));
            assertEquals(want[i][1], i64(size));
        }
        assertEquals(CuResult.INVALID_VALUE, d.cuFuncGetParamInfo(mixed, 4, addr(off), addr(size)));
        MemorySegment name = mem(8);
        assertEquals(0, d.cuFuncGetName(addr(name), mixed));
        assertEquals("mixed", MemorySegment.ofAddress(i64(name)).reinterpret(64).getString(0));
        MemorySegment mod = mem(8);
        assertEquals(0, d.cuFuncGetModule(addr(mod), mixed));
        assertEquals(m, i64(mod));
        assertEquals(0, d.cuFuncSetCacheConfig(mixed, 1));
        assertEquals(CuResult.INVALID_VALUE, d.cuFuncSetCacheConfig(mixed, 9));
        assertEquals(CuResult.INVALID_HANDLE, d.cuFuncGetAttribute(addr(mem(4)), 0, 0));
        assertEquals(CuResult.INVALID_VALUE, d.cuFuncGetAttribute(addr(mem(4)), 99, mixed));
    }

    @Test
    void launchShapesAreValidated() {
        initWithContext();
        long m = load(PTX);
        long add = function(m, "add"), req = function(m, "req"), dyn = function(m, "dynk");
        long out = alloc(4 * 1024);
        long ps = params(out, 1);
        assertEquals(CuResult.INVALID_HANDLE, d.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, ps, 0));
        assertEquals(CuResult.INVALID_HANDLE, d.cuLaunchKernel(0x5a4c_0500_0000_1230L, 1, 1, 1, 1, 1, 1, 0, 0, ps, 0));
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 0, 1, 1, 1, 1, 1, 0, 0, ps, 0), "grid x 0");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 1, 1, 1, 1, 0, 1, 0, 0, ps, 0), "block y 0");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 1, 65536, 1, 1, 1, 1, 0, 0, ps, 0), "grid y > 65535");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, -1, 1, 1, 1, 1, 1, 0, 0, ps, 0), "grid x > 2^31 - 1 (unsigned)");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(dyn, 1, 1, 1, 1, 1, 65, 0, 0, ps, 0), "block z > 64");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(dyn, 1, 1, 1, 1025, 1, 1, 0, 0, ps, 0), "block x > 1024");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(dyn, 1, 1, 1, 32, 32, 2, 0, 0, ps, 0), "2048 threads");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 1, 1, 1, 257, 1, 1, 0, 0, ps, 0), "above .maxntid");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(req, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0), "not the .reqntid shape");
        assertEquals(0, d.cuLaunchKernel(req, 1, 1, 1, 64, 1, 1, 0, 0, 0, 0));
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(dyn, 1, 1, 1, 1, 1, 1, (48 << 10) + 4, 0, ps, 0), "dynamic shared above 48 KiB");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0), "parameters missing");
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, 0, ps, addr(mem(8))), "both forms");
        assertEquals(CuResult.INVALID_HANDLE, d.cuLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, 0x5a4c_0200_0000_9990L, ps, 0), "bad stream");
        assertEquals(0, d.cuLaunchKernel(add, 2, 1, 1, 256, 1, 1, 0, 0, ps, 0));
        assertEquals(0, d.cuCtxSynchronize());
    }

    @Test
    void dynamicSharedMemoryOptIn() {
        initWithContext();
        long m = load(PTX);
        long dyn = function(m, "dynk");
        long out = alloc(4);
        int big = 64 << 10;
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(dyn, 1, 1, 1, 1, 1, 1, big, 0, params(out, big), 0));
        int optin = d.state.attributes.byName().get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
        assertEquals(CuResult.INVALID_VALUE, d.cuFuncSetAttribute(dyn, attrId("MAX_DYNAMIC_SHARED_SIZE_BYTES"), optin + 1));
        assertEquals(0, d.cuFuncSetAttribute(dyn, attrId("MAX_DYNAMIC_SHARED_SIZE_BYTES"), big));
        assertEquals(big, attr(dyn, "MAX_DYNAMIC_SHARED_SIZE_BYTES"));
        assertEquals(0, d.cuLaunchKernel(dyn, 1, 1, 1, 1, 1, 1, big, 0, params(out, big), 0));
        assertEquals(0, d.cuCtxSynchronize(), "the last word of 64 KiB of dynamic shared memory is usable");
        assertEquals(big, readInts(out, 1)[0]);
        assertEquals(0, d.cuLaunchKernel(dyn, 1, 1, 1, 1, 1, 1, big - 4, 0, params(out, big), 0));
        assertEquals(ILLEGAL_ADDRESS, d.cuCtxSynchronize(), "... and the word past it is not");
    }

    @Test
    void extraBufferAndLaunchKernelEx() {
        initWithContext();
        long m = load(PTX);
        long mixed = function(m, "mixed");
        long out = alloc(16);
        MemorySegment buf = mem(48), size = mem(8), extra = mem(8 * 5);
        buf.set(ValueLayout.JAVA_LONG, 16, 0x1122_3344_5566_7788L);
        buf.set(ValueLayout.JAVA_LONG, 32, out);
        buf.set(ValueLayout.JAVA_INT, 40, 77);
        size.set(ValueLayout.JAVA_LONG, 0, 48);
        long[] e = {1, addr(buf), 2, addr(size), 0};
        for (int i = 0; i < 5; i++) extra.setAtIndex(ValueLayout.JAVA_LONG, i, e[i]);
        assertEquals(0, d.cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, 0, 0, addr(extra)));
        MemorySegment h = mem(16);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), out, 16));
        assertEquals(0x1122_3344_5566_7788L, h.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(77, h.get(ValueLayout.JAVA_INT, 8));
        // a buffer smaller than the parameters launches, as on the H200 (samples/traces/h200/misuse,
        // extra_buffer_too_small); zluda reads only the declared bytes, the int parameter past them is zero
        size.set(ValueLayout.JAVA_LONG, 0, 40);
        assertEquals(0, d.cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, 0, 0, addr(extra)), "buffer smaller than the parameters");
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), out, 16));
        assertEquals(0x1122_3344_5566_7788L, h.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(0, h.get(ValueLayout.JAVA_INT, 8), "the parameter past the declared size is zero");
        // cuLaunchKernelEx with the CUlaunchConfig layout of the spec
        long add = function(m, "add");
        long out2 = alloc(4 * 32);
        MemorySegment cfg = mem(56), attrs = mem(72);
        cfg.set(ValueLayout.JAVA_INT, 0, 1);
        cfg.set(ValueLayout.JAVA_INT, 4, 1);
        cfg.set(ValueLayout.JAVA_INT, 8, 1);
        cfg.set(ValueLayout.JAVA_INT, 12, 32);
        cfg.set(ValueLayout.JAVA_INT, 16, 1);
        cfg.set(ValueLayout.JAVA_INT, 20, 1);
        cfg.set(ValueLayout.JAVA_LONG, 40, addr(attrs));
        cfg.set(ValueLayout.JAVA_INT, 48, 1);
        attrs.set(ValueLayout.JAVA_INT, 0, 8); // CU_LAUNCH_ATTRIBUTE_PRIORITY: accepted
        assertEquals(0, d.cuLaunchKernelEx(addr(cfg), add, params(out2, 3), 0));
        assertEquals(3 + 5 + 31, readInts(out2, 32)[31]);
        attrs.set(ValueLayout.JAVA_INT, 0, 2); // cooperative: a grid of one CTA is resident, so it runs (GroupedLaunchLayerTest)
        attrs.set(ValueLayout.JAVA_INT, 8, 1);
        assertEquals(0, d.cuLaunchKernelEx(addr(cfg), add, params(out2, 4), 0));
        assertEquals(4 + 5 + 31, readInts(out2, 32)[31]);
        attrs.set(ValueLayout.JAVA_INT, 0, 999);
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernelEx(addr(cfg), add, params(out2, 3), 0));
    }

    @Test
    void illegalAddressIsStickyUntilTheContextIsDestroyed() {
        assertEquals(0, d.cuInit(0));
        MemorySegment ctx = mem(8);
        assertEquals(0, d.cuCtxCreate_v2(addr(ctx), 0, 0));
        long m = load(PTX);
        long bad = function(m, "bad");
        long buf = alloc(4096);
        assertEquals(0, d.cuLaunchKernel(bad, 1, 1, 1, 32, 1, 1, 0, 0, params(buf), 0), "the launch itself succeeds");
        assertEquals(ILLEGAL_ADDRESS, d.cuCtxSynchronize());
        assertEquals(ILLEGAL_ADDRESS, d.cuMemAlloc_v2(addr(mem(8)), 16), "sticky: later calls on the context fail too");
        assertEquals(ILLEGAL_ADDRESS, d.cuStreamSynchronize(0));
        assertEquals(ILLEGAL_ADDRESS, d.cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, 0, params(buf), 0));
        assertEquals(0, d.cuCtxDestroy_v2(i64(ctx)));
        MemorySegment ctx2 = mem(8);
        assertEquals(0, d.cuCtxCreate_v2(addr(ctx2), 0, 0));
        assertNotEquals(i64(ctx), i64(ctx2));
        assertEquals(0, d.cuCtxSynchronize(), "a new context is clean");
        long m2 = load(PTX);
        long mis = function(m2, "mis");
        long buf2 = alloc(64);
        assertEquals(0, d.cuLaunchKernel(mis, 1, 1, 1, 1, 1, 1, 0, 0, params(buf2), 0));
        assertEquals(MISALIGNED_ADDRESS, d.cuCtxSynchronize());
    }

    @Test
    void primaryContextResetClearsTheStickyError() {
        initWithContext();
        long m = load(PTX);
        assertEquals(0, d.cuLaunchKernel(function(m, "bad"), 1, 1, 1, 1, 1, 1, 0, 0, params(alloc(16)), 0));
        assertEquals(ILLEGAL_ADDRESS, d.cuCtxSynchronize());
        assertEquals(0, d.cuDevicePrimaryCtxReset_v2(0));
        assertEquals(0, d.cuCtxSynchronize());
        assertEquals(CuResult.INVALID_HANDLE, d.cuModuleUnload(m), "reset unloaded the module");
    }

    /**
     * oob.cu ({@code __global__ void oob(int *p, int n) { int i = threadIdx.x + (1 << 30); p[i] = n; }}, the
     * store on its line 4) compiled by {@code nvcc -lineinfo -arch=sm_80 -ptx oob.cu} (CUDA 13.0, V13.0.88)
     * in /tmp/nu: its store is PTX line 34, after {@code .loc 1 4 5}; the {@code .file} comes last.
     */
    static final String OOB_LINEINFO_PTX = """
            //
            // Generated by NVIDIA NVVM Compiler
            //
            // Compiler Build ID: CL-36424714
            // Cuda compilation tools, release 13.0, V13.0.88
            // Based on NVVM 7.0.1
            //

            .version 9.0
            .target sm_80
            .address_size 64

            	// .globl	_Z3oobPii

            .visible .entry _Z3oobPii(
            	.param .u64 _Z3oobPii_param_0,
            	.param .u32 _Z3oobPii_param_1
            )
            {
            	.reg .b32 	%r<4>;
            	.reg .b64 	%rd<5>;
            	.loc	1 1 0


            	ld.param.u64 	%rd1, [_Z3oobPii_param_0];
            	ld.param.u32 	%r1, [_Z3oobPii_param_1];
            	.loc	1 3 5
            	cvta.to.global.u64 	%rd2, %rd1;
            	mov.u32 	%r2, %tid.x;
            	add.s32 	%r3, %r2, 1073741824;
            	.loc	1 4 5
            	mul.wide.s32 	%rd3, %r3, 4;
            	add.s64 	%rd4, %rd2, %rd3;
            	st.global.u32 	[%rd4], %r1;
            	.loc	1 5 1
            	ret;

            }

            	.file	1 "/tmp/nu/oob.cu"
            """;

    /**
     * A kernel fault names the PTX line and, with nvcc's line information, the source line it came from; without a
     * capture it says that the module file it names is not written.
     */
    @Test
    void aKernelFaultNamesTheSourceLineFromTheLocDirectives() {
        initWithContext();
        long oob = function(load(OOB_LINEINFO_PTX), "_Z3oobPii");
        long buf = alloc(64);
        java.io.PrintStream old = System.err;
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertEquals(0, d.cuLaunchKernel(oob, 1, 1, 1, 1, 1, 1, 0, 0, params(buf, 7), 0));
        } finally {
            System.setErr(old);
        }
        assertEquals(ILLEGAL_ADDRESS, d.cuCtxSynchronize());
        String err = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(err.matches("(?s).*\\[ZLUDA\\] kernel _Z3oobPii: CUDA_ERROR_ILLEGAL_ADDRESS: .*, (module_\\d{4}_01\\.ptx):34 `st\\.global\\.u32.*\n"
                + "\\[ZLUDA\\]   source: /tmp/nu/oob\\.cu:4:5 \\(the last \\.loc before \\1:34\\)\n.*"), err);
        if (System.getenv("ZLUDA_LOG_DIR") == null) {
            assertTrue(err.contains("[ZLUDA]   (nothing is recorded in this run, so that file is not written: zluda run --zluda-trace keeps it in the capture)"), err);
        }
    }

    /** A failed cuLibraryLoadData is named as itself, not as another function of the family. */
    @Test
    void aLibraryLoadFailureNamesTheFunctionCalled() {
        initWithContext();
        String unsupported = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n vadd.u32.u32.u32.sat %r1, %r2, %r3;\n ret;\n}\n";
        java.io.PrintStream old = System.err;
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertEquals(CuResult.NOT_SUPPORTED, d.cuLibraryLoadData(addr(mem(8)), cstr(unsupported), 0, 0, 0, 0, 0, 0));
        } finally {
            System.setErr(old);
        }
        String err = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(err.startsWith("[ZLUDA] cuLibraryLoadData failed with CUDA_ERROR_NOT_SUPPORTED:\n"), err);
    }

    @Test
    void libraries() {
        initWithContext();
        MemorySegment lib = mem(8), kernel = mem(8), fn = mem(8), count = mem(4);
        assertEquals(0, d.cuLibraryLoadData(addr(lib), cstr(PTX), 0, 0, 0, 0, 0, 0));
        assertEquals(0, d.cuLibraryGetKernelCount(addr(count), i64(lib)));
        assertEquals(6, i32(count));
        assertEquals(CuResult.NOT_FOUND, d.cuLibraryGetKernel(addr(kernel), i64(lib), cstr("nothing")));
        assertEquals(0, d.cuLibraryGetKernel(addr(kernel), i64(lib), cstr("add")));
        assertEquals(0, d.cuKernelGetFunction(addr(fn), i64(kernel)));
        long out = alloc(4 * 8);
        assertEquals(0, d.cuLaunchKernel(i64(fn), 1, 1, 1, 8, 1, 1, 0, 0, params(out, 1), 0));
        assertEquals(1 + 5 + 7, readInts(out, 8)[7]);
        assertEquals(0, d.cuLaunchKernel(i64(kernel), 1, 1, 1, 8, 1, 1, 0, 0, params(out, 2), 0), "a CUkernel is accepted as a CUfunction");
        assertEquals(2 + 5 + 7, readInts(out, 8)[7]);
        MemorySegment dptr = mem(8), bytes = mem(8);
        assertEquals(0, d.cuLibraryGetGlobal(addr(dptr), addr(bytes), i64(lib), cstr("garr")));
        assertEquals(16, i64(bytes));
        MemorySegment name = mem(8);
        assertEquals(0, d.cuKernelGetName(addr(name), i64(kernel)));
        assertEquals("add", MemorySegment.ofAddress(i64(name)).reinterpret(16).getString(0));
        assertEquals(0, d.cuLibraryUnload(i64(lib)));
        assertEquals(CuResult.INVALID_HANDLE, d.cuLaunchKernel(i64(fn), 1, 1, 1, 8, 1, 1, 0, 0, params(out, 1), 0));
        assertEquals(CuResult.INVALID_HANDLE, d.cuLibraryUnload(i64(lib)));
    }

    @Test
    void occupancy() {
        initWithContext();
        long f = function(load(PTX), "dynk");
        MemorySegment n = mem(4), grid = mem(4), block = mem(4);
        assertEquals(0, d.cuOccupancyMaxActiveBlocksPerMultiprocessor(addr(n), f, 256, 0));
        int threadsPerSm = d.state.attributes.byName().get("MAX_THREADS_PER_MULTIPROCESSOR");
        assertEquals(Math.min(threadsPerSm / 256, d.state.attributes.byName().get("MAX_BLOCKS_PER_MULTIPROCESSOR")), i32(n));
        assertEquals(0, d.cuOccupancyMaxPotentialBlockSize(addr(grid), addr(block), f, 0, 0, 0));
        assertTrue(i32(block) >= 32 && i32(block) <= 1024 && i32(block) % 32 == 0, "block " + i32(block));
        assertTrue(i32(grid) > 0);
    }
}
