package dev.zluda.runtime.hip;

import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.backend.HostMemory;
import dev.zluda.runtime.emulator.EmulatorModule;
import dev.zluda.runtime.emulator.Kernel;
import dev.zluda.runtime.emulator.TextureObject;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.llvm.LlvmEmitter;
import dev.zluda.ptx.llvm.LlvmTarget;
import dev.zluda.ptx.llvm.LlvmTools;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The AMD GPU that serves the CUDA driver on the hip backend: HIP device 0, opened once by {@code cuInit}. It
 * knows the device's identity (name, memory, gfx architecture from {@code hipDeviceProp_t.gcnArchName}), answers
 * device attributes through {@link HipAttributes}, compiles PTX into AMDGPU code objects for the device's
 * architecture ({@code dev.zluda.ptx.llvm}) and turns HIP's errors into CUDA's.
 *
 * <p>As the driver's {@link Backend}: device memory is HIP's ({@code hipMalloc}/{@code hipFree}), reached only through
 * HIP's copies ({@code hipMemcpyHtoD/DtoH/DtoD}) and memsets ({@code hipMemsetD8/D16/D32}); each CUDA stream and
 * event is HIP's ({@code hipStreamCreateWithPriority}, {@code hipEventCreateWithFlags}; CUDA's and HIP's flag values
 * are the same), the default stream HIP's null stream; modules are code objects loaded with
 * {@code hipModuleLoadData}, kernels {@code hipModuleGetFunction}'s, launches {@code hipModuleLaunchKernel} with the
 * arguments at their PTX offsets ({@link KernelArgs#pack}). Work runs asynchronously: a kernel's fault shows at the
 * next synchronisation, as HIP reports it. Managed memory, host registration and texture objects are not served.
 */
public final class HipDevice implements Backend {
    /** {@code hipDeviceProp_t} offsets (public hip_runtime_api.h): HIP 5.x {name 0, totalGlobalMem 256, gcnArchName 396}. */
    static final int HIP5_TOTAL_MEM = 256, HIP5_ARCH_NAME = 396;
    /** HIP 6.x ({@code hipDeviceProp_tR0600}): {name 0, totalGlobalMem 288, gcnArchName 1160}. */
    static final int HIP6_TOTAL_MEM = 288, HIP6_ARCH_NAME = 1160;
    /** {@code hipRuntimeGetVersion} of HIP 6.0. */
    static final int HIP6 = 60_000_000;

    private final Hip hip;
    private final int runtimeVersion;
    private final String name, archName;
    private final long totalMemory;
    private final LlvmTarget target;

    /** The device could not be opened; {@code cuResult} is what {@code cuInit} returns. */
    public static final class OpenFailure extends Exception {
        /** The CUresult for cuInit. */
        public final int cuResult;

        OpenFailure(int cuResult, String message) {
            super(message, null, false, false);
            this.cuResult = cuResult;
        }
    }

    private HipDevice(Hip hip, int runtimeVersion, String name, String archName, long totalMemory) {
        this.hip = hip;
        this.runtimeVersion = runtimeVersion;
        this.name = name;
        this.archName = archName;
        this.totalMemory = totalMemory;
        String base = archName.contains(":") ? archName.substring(0, archName.indexOf(':')) : archName;   // gfx90a:sramecc+:xnack-
        LlvmTarget t = LlvmTarget.byName(base);
        this.target = t != null && t.amd() ? t : null;
    }

    /**
     * Initializes HIP and opens device 0.
     *
     * @throws OpenFailure CUDA_ERROR_NO_DEVICE (100) without a device, CUDA_ERROR_NOT_SUPPORTED (801) for a HIP
     *     older than 5.0 (another attribute numbering), else HIP's error as a CUresult
     */
    public static HipDevice open(Hip hip) throws OpenFailure {
        int e = hip.init();
        if (e != 0) throw new OpenFailure(e == 100 ? 100 : cuResult(e), "hipInit: " + hip.errorString(e) + " (hipError " + e + ")");
        int[] n = hip.getDeviceCount();
        if (n[0] != 0 || n[1] == 0) throw new OpenFailure(100, "no AMD device (hipGetDeviceCount: " + (n[0] != 0 ? hip.errorString(n[0]) : "0 devices") + ")");
        int[] v = hip.runtimeGetVersion();
        if (v[0] != 0) throw new OpenFailure(cuResult(v[0]), "hipRuntimeGetVersion: " + hip.errorString(v[0]));
        if (!HipAttributes.numberingSupported(v[1])) {
            throw new OpenFailure(801, "HIP runtime " + version(v[1]) + " is older than 5.0, whose hipDeviceAttribute_t numbering zluda uses");
        }
        e = hip.setDevice(0);
        if (e != 0) throw new OpenFailure(cuResult(e), "hipSetDevice(0): " + hip.errorString(e));
        boolean hip6 = v[1] >= HIP6;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment props = a.allocate(4096, 16);
            e = hip.deviceProperties(props, 0, hip6);
            if (e != 0) throw new OpenFailure(cuResult(e), "hipGetDeviceProperties: " + hip.errorString(e));
            String name = props.getString(0, StandardCharsets.US_ASCII);
            long total = props.get(ValueLayout.JAVA_LONG_UNALIGNED, hip6 ? HIP6_TOTAL_MEM : HIP5_TOTAL_MEM);
            String arch = props.getString(hip6 ? HIP6_ARCH_NAME : HIP5_ARCH_NAME, StandardCharsets.US_ASCII);
            return new HipDevice(hip, v[1], name, arch, total);
        }
    }

    /** "5.2.21153" for {@code hipRuntimeGetVersion} 50221153. */
    public static String version(int v) {
        return (v / 10_000_000) + "." + (v / 100_000 % 100) + "." + (v % 100_000);
    }

    /** The binding. */
    public Hip hip() { return hip; }

    /** {@code hipRuntimeGetVersion}. */
    public int runtimeVersion() { return runtimeVersion; }

    /** The device's name ({@code hipDeviceProp_t.name}). */
    public String name() { return name; }

    /** {@code hipDeviceProp_t.gcnArchName}, e.g. {@code gfx1100} or {@code gfx90a:sramecc+:xnack-}. */
    public String archName() { return archName; }

    /** Bytes of device memory ({@code hipDeviceProp_t.totalGlobalMem}). */
    public long totalMemory() { return totalMemory; }

    /** The LLVM target zluda compiles for on this device, or null when zluda has none for its architecture. */
    public LlvmTarget target() { return target; }

    /** One line for logs: name, architecture, HIP version. */
    public String describe() {
        return name + " (" + archName + ", HIP " + version(runtimeVersion) + ", " + hip.library() + ")";
    }

    /**
     * The device's answers for the attributes of {@link HipAttributes#TABLE} (and 0 for
     * {@link HipAttributes#ABSENT_ON_HIP}); attributes HIP refuses are left out, so the caller's default stays.
     *
     * @param cudaNames every CUdevice_attribute name (without {@code CU_DEVICE_ATTRIBUTE_})
     */
    public Map<String, Integer> attributes(Iterable<String> cudaNames) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String n : cudaNames) {
            if (HipAttributes.ABSENT_ON_HIP.contains(n)) {
                out.put(n, 0);
                continue;
            }
            Integer h = HipAttributes.TABLE.get(n);
            if (h == null) continue;
            int[] r = hip.deviceAttribute(h, 0);
            if ((r[0] != 0 || r[1] == 0) && HipAttributes.AMD_FALLBACK.containsKey(n)) r = hip.deviceAttribute(HipAttributes.AMD_FALLBACK.get(n), 0);
            if (r[0] == 0) out.put(n, r[1]);
        }
        return out;
    }

    /**
     * CUresult for a hipError_t: HIP's codes that CUDA's driver API has with the same meaning keep their value
     * (hip_runtime_api.h and cuda.h agree on 1–4, 100, 101, 200, 201, 209, 218, 301, 400, 500, 600, 700–702, 709,
     * 710, 719, 801); hipErrorInvalidConfiguration, hipErrorInvalidPitchValue, hipErrorInvalidDevicePointer and
     * hipErrorInvalidMemcpyDirection are CUDA_ERROR_INVALID_VALUE, hipErrorInvalidDeviceFunction
     * CUDA_ERROR_INVALID_HANDLE, the rest CUDA_ERROR_UNKNOWN (999).
     */
    public static int cuResult(int hipError) {
        return switch (hipError) {
            case 0, 1, 2, 3, 4, 100, 101, 200, 201, 209, 218, 301, 400, 500, 600, 700, 701, 702, 709, 710, 719, 801 -> hipError;
            case 9, 12, 17, 21 -> 1;
            case 98 -> 400;
            default -> 999;
        };
    }

    /** A PTX module compiled for the device: the code object and the kernels it defines. */
    public record CodeObject(byte[] elf, ModuleModel model, List<FunctionInfo> kernels, String infoLog) {}

    /** A module that did not compile: the CUresult and the log ({@code file:line:col: error: ...} lines). */
    public static final class CompileFailure extends Exception {
        /** CUDA_ERROR_INVALID_PTX (218) for PTX with errors, CUDA_ERROR_NOT_SUPPORTED (801) for what zluda cannot compile. */
        public final int cuResult;

        CompileFailure(int cuResult, String log) {
            super(log, null, false, false);
            this.cuResult = cuResult;
        }
    }

    /**
     * Compiles PTX for this device: parse and check (errors: CUDA_ERROR_INVALID_PTX), lower to LLVM IR for the
     * device's target (what the lowering refuses, e.g. wave64 warp instructions: CUDA_ERROR_NOT_SUPPORTED with the
     * PTX line), then {@code opt}, {@code llc} and {@code ld.lld} into a code object.
     */
    public CodeObject compile(String ptx, String source) throws CompileFailure {
        if (target == null) {
            throw new CompileFailure(801, source + ": zluda compiles for gfx1030, gfx1100, gfx90a and gfx942, not for this device's " + archName);
        }
        ParseResult pr = Ptx.parse(ptx, source);
        if (!pr.ok()) throw new CompileFailure(218, errors(pr.diagnostics()));
        ModuleModel model = Semantics.analyze(pr.module(), source);
        if (!model.ok()) throw new CompileFailure(218, errors(model.diagnostics()));
        LlvmEmitter.Result r = LlvmEmitter.emit(pr.module(), model, target, source);
        if (!r.ok()) throw new CompileFailure(801, errors(r.errors()));
        LlvmTools tools = LlvmTools.find();
        if (tools == null) throw new CompileFailure(801, source + ": " + LlvmTools.missingMessage());
        long t0 = System.nanoTime();
        byte[] elf;
        try {
            elf = tools.compile(r.ir(), target);
        } catch (IOException e) {
            throw new CompileFailure(801, source + ": LLVM failed on the lowered IR (a bug of zluda's lowering): " + e.getMessage());
        }
        List<FunctionInfo> kernels = new ArrayList<>();
        for (FunctionInfo f : model.kernels()) if (f.defined()) kernels.add(f);
        String info = String.format(java.util.Locale.ROOT, "%s: code object for %s, %d bytes, %d kernel(s), LLVM %.1f ms%n", source,
                target.cpu(), elf.length, kernels.size(), (System.nanoTime() - t0) / 1e6);
        return new CodeObject(elf, model, kernels, info);
    }

    // ================================================================ Backend

    @Override public String kind() { return "hip"; }
    @Override public String deviceName() { return name; }
    @Override public boolean deviceSeesHostMemory() { return false; }
    @Override public boolean supportsTextures() { return false; }
    @Override public boolean synchronous() { return false; }

    @Override
    public DeviceMemory allocate(long bytes) throws BackendException {
        long[] m = hip.malloc(bytes);
        if (m[0] != 0) throw new BackendException(cuResult((int) m[0]), "hipMalloc(" + bytes + "): " + hip.errorString((int) m[0]));
        long address = m[1];
        return new DeviceMemory(address, () -> hip.free(address));
    }

    @Override
    public int copy(long dst, boolean dstOnDevice, long src, boolean srcOnDevice, long bytes) {
        int e;
        if (dstOnDevice && srcOnDevice) e = hip.memcpyDtoD(dst, src, bytes);
        else if (dstOnDevice) e = hip.memcpyHtoD(dst, HostMemory.at(src, bytes), bytes);
        else if (srcOnDevice) e = hip.memcpyDtoH(HostMemory.at(dst, bytes), src, bytes);
        else {
            HostMemory.copy(dst, src, bytes);
            e = 0;
        }
        return cuResult(e);
    }

    @Override
    public int memset(long dst, long pitch, long value, long width, long height, int elementSize, boolean onDevice) {
        if (!onDevice) {
            HostMemory.fill(dst, pitch, value, width, height, elementSize);
            return 0;
        }
        int v = elementSize == 1 ? (int) value & 0xFF : elementSize == 2 ? (int) value & 0xFFFF : (int) value;
        if (pitch == width * elementSize || height == 1) return cuResult(hip.memsetD(elementSize, dst, v, width * height));
        for (long y = 0; y < height; y++) {
            int e = hip.memsetD(elementSize, dst + pitch * y, v, width);
            if (e != 0) return cuResult(e);
        }
        return 0;
    }

    @Override
    public byte[] read(long address, long bytes, boolean onDevice) throws BackendException {
        if (!onDevice) return HostMemory.at(address, bytes).toArray(ValueLayout.JAVA_BYTE);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Math.max(1, bytes), 16);
            int e = hip.memcpyDtoH(out, address, bytes);
            if (e != 0) throw new BackendException(cuResult(e), "hipMemcpyDtoH of " + bytes + " bytes: " + hip.errorString(e));
            return out.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Override public int synchronize() { return cuResult(hip.deviceSynchronize()); }

    @Override
    public long createStream(int flags, int priority) throws BackendException {
        long[] s = hip.streamCreate(flags, priority);
        if (s[0] != 0) throw new BackendException(cuResult((int) s[0]), "hipStreamCreateWithPriority: " + hip.errorString((int) s[0]));
        return s[1];
    }

    @Override public int destroyStream(long stream) { return cuResult(hip.streamDestroy(stream)); }
    @Override public int synchronizeStream(long stream) { return cuResult(hip.streamSynchronize(stream)); }
    @Override public int queryStream(long stream) { return cuResult(hip.streamQuery(stream)); }
    @Override public int streamWaitEvent(long stream, long event) { return cuResult(hip.streamWaitEvent(stream, event, 0)); }

    @Override
    public long createEvent(int flags) throws BackendException {
        long[] e = hip.eventCreate(flags);
        if (e[0] != 0) throw new BackendException(cuResult((int) e[0]), "hipEventCreateWithFlags: " + hip.errorString((int) e[0]));
        return e[1];
    }

    @Override public int destroyEvent(long event) { return cuResult(hip.eventDestroy(event)); }
    @Override public int recordEvent(long event, long stream) { return cuResult(hip.eventRecord(event, stream)); }
    @Override public int queryEvent(long event) { return cuResult(hip.eventQuery(event)); }
    @Override public int synchronizeEvent(long event) { return cuResult(hip.eventSynchronize(event)); }

    @Override
    public int elapsedTime(long start, long startNanos, long end, long endNanos, float[] out) {
        int[] err = new int[1];
        float ms = hip.eventElapsedTime(start, end, err);
        if (err[0] != 0) return cuResult(err[0]);
        out[0] = ms;
        return 0;
    }

    /** hipFunction_attribute values (hip/driver_types.h; the same order as CUfunction_attribute). */
    private static final int HIP_FUNC_MAX_THREADS = 0, HIP_FUNC_SHARED = 1, HIP_FUNC_CONST = 2, HIP_FUNC_LOCAL = 3, HIP_FUNC_REGS = 4;

    /** A function attribute of a HIP kernel, or {@code fallback} when HIP does not answer. */
    private int funcAttribute(long function, int attribute, int fallback) {
        int[] r = hip.funcAttribute(attribute, function);
        return r[0] == 0 ? r[1] : fallback;
    }

    /**
     * PTX → code object for the device's architecture ({@link #compile}: errors of the PTX are CUDA_ERROR_INVALID_PTX,
     * what the lowering refuses CUDA_ERROR_NOT_SUPPORTED, each with its PTX line) → {@code hipModuleLoadData};
     * kernels are {@code hipModuleGetFunction}'s, their attributes {@code hipFuncGetAttribute}'s, module variables
     * {@code hipModuleGetGlobal}'s (the variable allocator is not used: HIP places them).
     */
    @Override
    public LoadedModule load(String ptx, String source, VariableAllocator variables) throws BackendException {
        CodeObject co;
        try {
            co = compile(ptx, source);
        } catch (CompileFailure f) {
            throw new BackendException(f.cuResult, f.getMessage());
        }
        long hm;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment image = a.allocate(co.elf().length, 16);
            MemorySegment.copy(co.elf(), 0, image, ValueLayout.JAVA_BYTE, 0, co.elf().length);
            long[] r = hip.moduleLoadData(image);
            if (r[0] != 0) {
                throw new BackendException(cuResult((int) r[0]), source + ": hipModuleLoadData of the " + target().cpu() + " code object failed: "
                        + hip.errorString((int) r[0]) + " (hipError " + r[0] + ")");
            }
            hm = r[1];
        }
        List<LoadedKernel> made = new ArrayList<>();
        for (FunctionInfo info : co.kernels()) {
            long[] f = hip.moduleGetFunction(hm, info.name());
            if (f[0] != 0) {
                hip.moduleUnload(hm);
                throw new BackendException(cuResult((int) f[0]), source + ": hipModuleGetFunction(" + info.name() + "): " + hip.errorString((int) f[0]));
            }
            int maxThreads = 1024;
            int[] req = null;
            List<Long> rq = info.directives().get(".reqntid");
            if (rq != null && !rq.isEmpty()) {
                req = new int[] {1, 1, 1};
                for (int k = 0; k < rq.size() && k < 3; k++) req[k] = (int) (long) rq.get(k);
                maxThreads = Math.min(maxThreads, req[0] * req[1] * req[2]);
            }
            List<Long> mx = info.directives().get(".maxntid");
            if (mx != null && !mx.isEmpty()) {
                long prod = 1;
                for (Long v : mx) prod *= v;
                maxThreads = (int) Math.min(maxThreads, prod);
            }
            int hipMax = funcAttribute(f[1], HIP_FUNC_MAX_THREADS, 0);
            if (hipMax > 0) maxThreads = Math.min(maxThreads, hipMax);
            Kernel k = new Kernel(info.name(), info, null, funcAttribute(f[1], HIP_FUNC_SHARED, 0), funcAttribute(f[1], HIP_FUNC_LOCAL, 0),
                    maxThreads, req, Math.max(1, funcAttribute(f[1], HIP_FUNC_REGS, 1)));
            made.add(new LoadedKernel(k, f[1]));
        }
        long module = hm;
        return new LoadedModule() {
            @Override public List<LoadedKernel> kernels() { return made; }
            @Override public String infoLog() { return co.infoLog(); }
            @Override public int constBytes(LoadedKernel kernel) { return funcAttribute(kernel.handle(), HIP_FUNC_CONST, 0); }
            @Override public int ptxVersion() { return EmulatorModule.targetArchitecture(co.model()); }
            @Override public void unload() { hip.moduleUnload(module); }

            @Override
            public long[] global(String name) throws BackendException {
                long[] g = hip.moduleGetGlobal(module, name);
                if (g[0] != 0) throw new BackendException(cuResult((int) g[0]), "hipModuleGetGlobal(" + name + "): " + hip.errorString((int) g[0]));
                return new long[] {g[1], g[2]};
            }
        };
    }

    /**
     * {@code hipModuleLaunchKernel} on the stream's HIP stream. The arguments: packed from {@code kernelParams} each at
     * its PTX offset ({@link KernelArgs#pack}, as long as the last parameter's end), or the {@code extra} buffer as
     * given. It runs asynchronously: the outcome carries no kernel error.
     */
    @Override
    public LaunchOutcome launch(LaunchRequest r) {
        Kernel kernel = r.kernel().kernel();
        byte[] args = r.params();
        if (r.fromKernelParams()) {
            List<ParamInfo> ps = kernel.info().params();
            List<byte[]> values = new ArrayList<>(ps.size());
            for (ParamInfo p : ps) values.add(java.util.Arrays.copyOfRange(args, (int) p.offset(), (int) (p.offset() + p.size())));
            args = KernelArgs.pack(ps, values);
        }
        long t0 = System.nanoTime();
        int e;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Math.max(1, args.length), 16);
            MemorySegment.copy(args, 0, buf, ValueLayout.JAVA_BYTE, 0, args.length);
            e = hip.moduleLaunchKernel(r.kernel().handle(), r.grid(), r.block(), r.sharedBytes(), r.stream(), buf, args.length);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        int[] g = r.grid(), b = r.block();
        int err = e;
        return new LaunchOutcome(cuResult(e), 0, "", () -> String.format(java.util.Locale.ROOT,
                "kernel %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: launched through HIP in %.3f ms%s",
                kernel.name(), g[0], g[1], g[2], b[0], b[1], b[2], r.sharedBytes(), ms, err == 0 ? "" : ", hipModuleLaunchKernel: " + hip.errorString(err)));
    }

    /** Texture objects are refused before they get here ({@link #supportsTextures()}). */
    @Override public void registerTexture(long handle, TextureObject object) {}
    @Override public void unregisterTexture(long handle) {}

    /** HIP prints device-side output itself. */
    @Override public void flushDeviceOutput() {}

    private static String errors(List<Diagnostic> ds) {
        StringBuilder b = new StringBuilder();
        for (Diagnostic d : ds) {
            if (!d.isError()) continue;
            if (!b.isEmpty()) b.append('\n');
            b.append(d.format());
        }
        return b.toString();
    }
}
