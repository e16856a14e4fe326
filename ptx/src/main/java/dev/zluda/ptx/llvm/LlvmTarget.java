package dev.zluda.ptx.llvm;

import dev.zluda.ptx.ir.Mod;

import java.util.Locale;

/**
 * A GPU the PTX → LLVM IR compiler ({@link LlvmEmitter}) emits for, with the few target hooks the otherwise
 * target-neutral lowering needs: the triple and data layout, the address space of {@code alloca}, how thread
 * and block ids are read, the barrier, reading a value from another lane (the basis of {@code shfl}), the
 * warp ballot (the basis of {@code vote}), atomic scopes, kernel parameters passed in memory, and which
 * instruction forms exist only on one side (directed rounding, {@code .approx} functions).
 *
 * <p>The IR carries no data layout: {@code opt} fills in its own, so one emitter serves LLVM 19 to 22.
 *
 * <p>Address spaces follow LLVM's numbering, which NVPTX and AMDGPU share for the spaces PTX uses: 0 generic
 * (AMDGPU "flat"), 1 global, 3 shared (AMDGPU LDS), 4 constant, 5 local (AMDGPU private).
 *
 * <p>AMD targets: RDNA ({@code gfx1030}, {@code gfx1100}) run 32-lane waves, as CUDA's warps are; CDNA
 * ({@code gfx90a}, {@code gfx942}) only 64-lane waves, so every warp-level instruction ({@code shfl},
 * {@code vote}, {@code %laneid}, ...) is refused at compile time for them.
 */
public enum LlvmTarget {
    /** AMD RDNA 2 (Radeon RX 6000, wave32). */
    GFX1030("gfx1030", 32),
    /** AMD RDNA 3 (Radeon RX 7000, wave32). */
    GFX1100("gfx1100", 32),
    /** AMD CDNA 2 (Instinct MI200, wave64 only). */
    GFX90A("gfx90a", 64),
    /** AMD CDNA 3 (Instinct MI300, wave64 only). */
    GFX942("gfx942", 64),
    /** NVIDIA Hopper through LLVM's NVPTX back end (used to check the lowering against a real GPU). */
    SM_90("sm_90", 32),
    /**
     * NVIDIA Hopper through NVPTX, but lowered as for AMD wherever the two sides differ ({@link #nvvmMath()} is
     * {@code false}: directed rounding and {@code .approx} functions in target-neutral IR instead of
     * {@code llvm.nvvm.*} intrinsics). Not a device: it exists so that the sequences AMD targets run can be run,
     * and compared bit for bit, on an NVIDIA GPU (docs/amd.md, check (b)).
     */
    SM_90_AS_AMD("sm_90", 32);

    private final String cpu;
    private final int waveSize;

    LlvmTarget(String cpu, int waveSize) {
        this.cpu = cpu;
        this.waveSize = waveSize;
    }

    /** The processor name as LLVM's {@code -mcpu} takes it ({@code gfx1100}, {@code sm_90}). */
    public String cpu() { return cpu; }

    /** Lanes per wave/warp the hardware runs: 32, or 64 for CDNA. */
    public int waveSize() { return waveSize; }

    /** {@code true} for the AMDGPU targets (code objects), {@code false} for NVPTX. */
    public boolean amd() { return this != SM_90 && this != SM_90_AS_AMD; }

    /**
     * {@code true} where the lowering may use NVPTX's math intrinsics ({@code llvm.nvvm.*.r[zmp]*} directed
     * rounding, {@code .approx} functions): only {@link #SM_90}. Elsewhere such forms are lowered in
     * target-neutral IR or refused.
     */
    public boolean nvvmMath() { return this == SM_90; }

    /** The target with this {@code -mcpu} name (case-insensitive), or {@code null}. */
    public static LlvmTarget byName(String name) {
        for (LlvmTarget t : values()) if (t.cpu.equalsIgnoreCase(name)) return t;
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** LLVM target triple. */
    public String triple() { return amd() ? "amdgcn-amd-amdhsa" : "nvptx64-nvidia-cuda"; }

    /** Address space of {@code alloca} (AMDGPU: private, 5; NVPTX: generic, 0). */
    int allocaSpace() { return amd() ? 5 : 0; }

    /** The {@code syncscope(...)} clause for a PTX scope ({@code .cta}, {@code .gpu}, {@code .sys}); "" for system. */
    String syncScope(Mod.Scope ptxScope) {
        if (!amd()) return "";                         // NVPTX: system scope, at least as strong as asked
        return switch (ptxScope) {
            case CTA -> " syncscope(\"workgroup\")";
            case SYS -> "";
            default -> " syncscope(\"agent\")";          // .gpu, and PTX's default scope
        };
    }
}
