package dev.zluda.image;

/**
 * A module image that cannot be used, with a message for the user: malformed (the message names
 * the structure and the offset of the bad field, relative to the start of that structure), without
 * PTX the device can run, or of a kind not supported yet. Drivers map the {@link #reason()} to a
 * CUresult: {@code CUDA_ERROR_INVALID_IMAGE} (200), {@code CUDA_ERROR_NO_BINARY_FOR_GPU} (209),
 * {@code CUDA_ERROR_NOT_SUPPORTED} (801).
 */
public final class ModuleImageException extends Exception {
    /** Why the image cannot be used. */
    public enum Reason {
        /** The image is malformed or not a module image at all. */
        MALFORMED,
        /** Well-formed, but no PTX the device can run (SASS only, or only newer or arch-specific PTX). */
        NO_BINARY_FOR_DEVICE,
        /** Well-formed, but needs something not implemented yet (e.g. linking relocatable device code). */
        UNSUPPORTED
    }

    private final Reason reason;

    /** A malformed image. */
    public ModuleImageException(String message) {
        this(message, Reason.MALFORMED);
    }

    public ModuleImageException(String message, Reason reason) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** True when the image is well-formed but holds no PTX the device can run. */
    public boolean noBinaryForDevice() {
        return reason == Reason.NO_BINARY_FOR_DEVICE;
    }
}
