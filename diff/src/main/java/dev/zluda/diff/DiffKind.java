package dev.zluda.diff;

/** What differs about a call. */
public enum DiffKind {
    /** The call is in capture A only (B lacks it). */
    MISSING("missing", "only in A"),
    /** The call is in capture B only. */
    EXTRA("extra", "only in B"),
    /** The CUresult differs (or one side never returned). */
    RESULT("result", "result"),
    /** An input argument or input data (other than a buffer) differs, after normalisation. */
    ARGUMENT("argument", "argument"),
    /** A value the driver wrote through an output pointer differs, after normalisation. */
    OUTPUT("output", "output"),
    /** The bytes of a data buffer differ (device-to-host copies, host-to-device payloads). */
    DATA("data", "data"),
    /**
     * The after-image of a buffer of a kernel snapshot differs between two aligned launches (or the
     * kernel's result): the launch call diverges though its arguments agree.
     */
    KERNEL("kernel", "kernel after-image");

    private final String label;
    private final String description;

    DiffKind(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** Lower-case name used in reports and JSON, e.g. {@code result}. */
    public String label() {
        return label;
    }

    /** A few words for people. */
    public String description() {
        return description;
    }
}
