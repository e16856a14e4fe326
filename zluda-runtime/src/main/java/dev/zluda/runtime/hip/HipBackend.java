package dev.zluda.runtime.hip;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which backend serves the CUDA driver: {@code ZLUDA_BACKEND=emulator} (the CPU emulator), {@code ZLUDA_BACKEND=hip}
 * (AMD GPUs through HIP), or, unset, HIP when an AMD GPU is present, else the emulator.
 *
 * <p>State: the HIP backend enumerates AMD devices ({@link #probe}); running CUDA programs on them (memory, streams,
 * module loading of the code objects {@code dev.zluda.ptx.llvm} compiles, launches with {@link KernelArgs}) is not
 * wired into the driver yet. So an explicit {@code ZLUDA_BACKEND=hip} makes {@code cuInit} fail with a message
 * that says so (CUDA_ERROR_NO_DEVICE without an AMD device, CUDA_ERROR_NOT_SUPPORTED with one), and without
 * {@code ZLUDA_BACKEND} the emulator serves, with a note when an AMD GPU was found.
 */
public final class HipBackend {
    private HipBackend() {}

    /** The backend chosen, and why, in one line for logs. */
    public record Selection(String backend, String reason, int cuInitResult) {}

    /**
     * What HIP reports on this machine.
     *
     * @param library  the HIP library that loaded, or null
     * @param devices  AMD devices (names, or "device N" where HIP gives none); empty when none
     * @param message  one line: "HIP runtime not found (...)", "no AMD device (hipGetDeviceCount: ...)", or the devices
     */
    public record Probe(String library, List<String> devices, String message) {}

    /** Loads HIP (when installed) and counts its devices; never throws. */
    public static Probe probe() {
        Hip hip;
        try {
            hip = Hip.load();
        } catch (UnsatisfiedLinkError e) {
            return new Probe(null, List.of(), e.getMessage());
        }
        try {
            int[] n = hip.getDeviceCount();
            if (n[0] != 0) {
                return new Probe(hip.library(), List.of(), "no AMD device (hipGetDeviceCount: " + hip.errorString(n[0]) + ", hipError " + n[0] + ")");
            }
            if (n[1] == 0) return new Probe(hip.library(), List.of(), "no AMD device (hipGetDeviceCount: 0 devices)");
            List<String> names = new ArrayList<>();
            for (int i = 0; i < n[1]; i++) {
                String name = hip.deviceName(i);
                names.add(name == null ? "device " + i : name);
            }
            return new Probe(hip.library(), names, n[1] + " AMD device(s): " + String.join(", ", names));
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return new Probe(hip.library(), List.of(), "no AMD device (" + e.getMessage() + ")");
        }
    }

    /**
     * Chooses the backend for {@code cuInit}.
     *
     * @param env the value of {@code ZLUDA_BACKEND} (null when unset)
     * @return the selection; {@code cuInitResult} 0 when the emulator serves, else the CUDA error cuInit returns
     */
    public static Selection select(String env) {
        String want = env == null ? "" : env.trim().toLowerCase(Locale.ROOT);
        switch (want) {
            case "emulator" -> { return new Selection("emulator", "ZLUDA_BACKEND=emulator", 0); }
            case "hip" -> {
                Probe p = probe();
                if (p.devices().isEmpty()) return new Selection("hip", "ZLUDA_BACKEND=hip but " + p.message(), 100);   // CUDA_ERROR_NO_DEVICE
                return new Selection("hip", "ZLUDA_BACKEND=hip: " + p.message()
                        + "; running kernels through HIP is not implemented yet (ZLUDA_BACKEND=emulator runs them on the CPU)", 801);
            }
            case "" -> {
                // only an AMD kernel driver (/dev/kfd) makes HIP worth loading at start-up
                if (!Files.exists(Path.of("/dev/kfd"))) return new Selection("emulator", "no AMD GPU driver (/dev/kfd)", 0);
                Probe p = probe();
                if (p.devices().isEmpty()) return new Selection("emulator", p.message(), 0);
                return new Selection("emulator", p.message() + "; the HIP backend does not run kernels yet, so the emulator serves", 0);
            }
            default -> { return new Selection("none", "ZLUDA_BACKEND=" + env + " is not hip or emulator", 1); }   // CUDA_ERROR_INVALID_VALUE
        }
    }
}
