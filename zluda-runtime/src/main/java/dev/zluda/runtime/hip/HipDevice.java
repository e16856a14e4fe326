package dev.zluda.runtime.hip;

import dev.zluda.ptx.Diagnostic;
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
 * <p>Memory, stream, event, module and launch calls go straight to {@link #hip()}; the driver's layers call them.
 */
public final class HipDevice {
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
