package dev.zluda.runtime.hip;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which backend serves the CUDA driver: {@code ZLUDA_BACKEND=emulator} (the CPU emulator), {@code ZLUDA_BACKEND=hip}
 * (AMD GPUs through HIP), or, unset, HIP when an AMD GPU is present, else the emulator. The system property
 * {@link #BACKEND_PROPERTY} stands for the variable where it is not set (programs that run the driver in their own
 * JVM, tests).
 *
 * <p>On the hip backend the driver's memory, streams, events, modules and launches go to HIP device 0
 * ({@link HipDevice}); PTX is compiled into a code object for the device's gfx architecture by
 * {@code dev.zluda.ptx.llvm}. Presence of an AMD GPU is decided without loading HIP first where possible: only
 * a machine with AMD's kernel driver ({@code /dev/kfd}) or a HIP library named by {@code ZLUDA_HIP_LIBRARY}
 * ({@link Hip#LIBRARY_PROPERTY}) is probed.
 */
public final class HipBackend {
    private HipBackend() {}

    /** System property read when {@code ZLUDA_BACKEND} is not set: {@code hip} or {@code emulator}. */
    public static final String BACKEND_PROPERTY = "zluda.backend";

    /** {@code ZLUDA_BACKEND}, else {@link #BACKEND_PROPERTY}, else null. */
    public static String requested() {
        String v = System.getenv("ZLUDA_BACKEND");
        return v != null ? v : System.getProperty(BACKEND_PROPERTY);
    }

    /**
     * The backend chosen, and why, in one line for logs.
     *
     * @param backend      "hip", "emulator" or "none"
     * @param reason       why, in words
     * @param cuInitResult 0 when a backend serves, else the CUresult cuInit returns
     * @param device       the opened AMD device when {@code backend} is "hip" and cuInitResult is 0, else null
     */
    public record Selection(String backend, String reason, int cuInitResult, HipDevice device) {}

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

    /** Opens HIP device 0 after a probe that found devices. */
    private static Selection openHip(Probe p, String how) {
        try {
            HipDevice d = HipDevice.open(Hip.load());
            String more = p.devices().size() > 1 ? " (device 0 of " + p.devices().size() + ")" : "";
            return new Selection("hip", how + d.describe() + more, 0, d);
        } catch (HipDevice.OpenFailure f) {
            return new Selection("hip", how + f.getMessage(), f.cuResult, null);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return new Selection("hip", how + "HIP failed: " + e.getMessage(), 999, null);   // CUDA_ERROR_UNKNOWN
        }
    }

    /**
     * Chooses the backend for {@code cuInit}.
     *
     * @param env the value of {@code ZLUDA_BACKEND} (null when unset)
     * @return the selection; {@code cuInitResult} 0 when a backend serves, else the CUDA error cuInit returns:
     *     CUDA_ERROR_NO_DEVICE for {@code hip} without an AMD device, CUDA_ERROR_NOT_SUPPORTED for a HIP older than
     *     5.0, CUDA_ERROR_INVALID_VALUE for a value that is neither {@code hip} nor {@code emulator}
     */
    public static Selection select(String env) {
        String want = env == null ? "" : env.trim().toLowerCase(Locale.ROOT);
        switch (want) {
            case "emulator" -> { return new Selection("emulator", "ZLUDA_BACKEND=emulator", 0, null); }
            case "hip" -> {
                Probe p = probe();
                if (p.devices().isEmpty()) return new Selection("hip", "ZLUDA_BACKEND=hip but " + p.message(), 100, null);   // CUDA_ERROR_NO_DEVICE
                return openHip(p, "ZLUDA_BACKEND=hip: ");
            }
            case "" -> {
                // only an AMD kernel driver (/dev/kfd), or a HIP library named explicitly, makes HIP worth loading at start-up
                if (Hip.libraryOverride() == null && !Files.exists(Path.of("/dev/kfd"))) {
                    return new Selection("emulator", "no AMD GPU driver (/dev/kfd)", 0, null);
                }
                Probe p = probe();
                if (p.devices().isEmpty()) return new Selection("emulator", p.message(), 0, null);
                Selection s = openHip(p, "AMD GPU found: ");
                if (s.cuInitResult() != 0) return new Selection("emulator", s.reason() + "; the emulator serves", 0, null);
                return s;
            }
            default -> { return new Selection("none", "ZLUDA_BACKEND=" + env + " is not hip or emulator", 1, null); }   // CUDA_ERROR_INVALID_VALUE
        }
    }
}
